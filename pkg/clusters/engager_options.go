// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// The retry policy of an Engager: a cluster that fails to build, start, sync or engage is tried again after
// EngagerOptions.RetryDelay, then after twice as long each time, at most EngagerOptions.MaxRetryDelay apart. Each
// delay is lengthened by up to RetryJitter of itself, at random, so that clusters that failed together do not retry
// together.
const (
	// DefaultRetryDelay is the default of EngagerOptions.RetryDelay: how long the first retry waits.
	DefaultRetryDelay = time.Second
	// DefaultMaxRetryDelay is the default of EngagerOptions.MaxRetryDelay: the longest wait between two attempts.
	DefaultMaxRetryDelay = 2 * time.Minute
	// RetryFactor is how much longer each retry waits than the one before.
	RetryFactor = 2
	// RetryJitter is the largest fraction of a delay added to it at random.
	RetryJitter = 0.1
)

// Reasons and action of the Events an Engager records on the object a cluster came from (Target.Object).
const (
	// ReasonEngaged (Normal): the cluster was engaged, or replaced by one built from its changed config.
	ReasonEngaged = "ClusterEngaged"
	// ReasonEngageFailed (Warning): building, starting, syncing or engaging the cluster failed; the note says when
	// it is tried again.
	ReasonEngageFailed = "EngageFailed"
	// ActionEngage is the action (events.k8s.io/v1) of the Events above.
	ActionEngage = "EngageCluster"
)

// EngagerOptions configures an Engager. The zero value is valid: every field has a default, applied by
// NewEngager and stated on the field.
type EngagerOptions struct {
	// Clusters is the set the engager keeps its clusters in: it adds them with AddOrReplace (so the set's
	// WaitCacheTimeout bounds each cluster's cache sync, and a replacement is engaged before the cluster it
	// replaces is stopped) and removes them with Remove. Its ErrorHandler, if set, receives the failures the
	// engager reports instead of the engager's logger. A provider that embeds a Clusters passes it here; the
	// engager's Get, IndexField and Clusters are that set's. Default: a set of the engager's own.
	Clusters *Clusters[cluster.Cluster]

	// WaitCacheTimeout, if set, bounds each new cluster's cache sync: it becomes the WaitCacheTimeout of Clusters.
	// Default: that of Clusters (DefaultWaitCacheTimeout unless set there).
	WaitCacheTimeout time.Duration

	// ClusterOptions are applied to every cluster the engager builds, before the options of each Target, which
	// win. Default: none.
	ClusterOptions []cluster.Option

	// NewCluster builds the cluster of a target. opts are ClusterOptions followed by target.Options; pass them
	// all on. The engager starts the cluster; NewCluster must not. ctx ends when the attempt is given up (the
	// target changed or went, or the engager stops), so it can bound requests made before the cluster is built.
	// Default: NewCluster(name, target.Config, opts...), which applies the library's defaults after opts; a
	// constructor that calls cluster.New itself keeps them by appending DefaultClusterOptions(name,
	// target.Config).
	NewCluster func(ctx context.Context, name multicluster.ClusterName, target Target, opts ...cluster.Option) (cluster.Cluster, error)

	// RetryDelay is how long the first retry of a failed cluster waits. Default: DefaultRetryDelay (one second).
	RetryDelay time.Duration

	// MaxRetryDelay is the longest wait between two attempts of a failing cluster. Default: DefaultMaxRetryDelay
	// (two minutes), or RetryDelay if that is longer.
	MaxRetryDelay time.Duration

	// EventRecorder, if set (or set by SetupWithManager), records an Event on the object a cluster came from (Target.Object) when the cluster
	// is engaged or replaced (Normal, ReasonEngaged) and when an attempt fails (Warning, ReasonEngageFailed). The
	// recorder of a host manager (GetEventRecorder) is one. Default: none, no Events.
	EventRecorder events.EventRecorder

	// EngagedEventRate is how many Normal Events about engaged or replaced clusters the engager records per second
	// once EngagedEventBurst is spent; the others wait their turn, in order, so that a fleet engaged at once does
	// not write a thousand Events to the host while it is being engaged. Warning Events are never held back. A
	// negative rate records every Event at once. Default: DefaultEngagedEventRate (10 per second).
	EngagedEventRate float64

	// EngagedEventBurst is how many Normal Events the engager records at once before EngagedEventRate applies.
	// Default: DefaultEngagedEventBurst (100).
	EngagedEventBurst int

	// Logger logs what the engager does, with the key "cluster": clusters engaged, replaced and disengaged, and
	// failures (unless Clusters has an ErrorHandler). Default: the logger SetupWithManager sets, else the logger of
	// the context Start or RunOnce is called with (log.FromContext).
	Logger logr.Logger

	// OnOutcome, if set, is called with the outcome of every Want and of every attempt, in the goroutine that
	// made it and outside the engager's lock: it may call the engager's methods, and must not block for long.
	// Default: none.
	OnOutcome func(Outcome)
}

// complete returns the options with every default applied.
func (o EngagerOptions) complete() EngagerOptions {
	if o.Clusters == nil {
		set := New[cluster.Cluster]()
		o.Clusters = &set
	}
	if o.WaitCacheTimeout > 0 {
		o.Clusters.WaitCacheTimeout = o.WaitCacheTimeout
	}
	if o.NewCluster == nil {
		o.NewCluster = func(_ context.Context, name multicluster.ClusterName, t Target, opts ...cluster.Option) (cluster.Cluster, error) {
			return NewCluster(name, t.Config, opts...)
		}
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = DefaultRetryDelay
	}
	if o.EngagedEventRate == 0 {
		o.EngagedEventRate = DefaultEngagedEventRate
	}
	if o.EngagedEventBurst <= 0 {
		o.EngagedEventBurst = DefaultEngagedEventBurst
	}
	if o.MaxRetryDelay <= 0 {
		o.MaxRetryDelay = DefaultMaxRetryDelay
	}
	o.MaxRetryDelay = max(o.MaxRetryDelay, o.RetryDelay)
	return o
}

// retryDelay is the wait before the next attempt after failures consecutive failures (at least one).
func (o *EngagerOptions) retryDelay(failures int) time.Duration {
	d := o.RetryDelay
	for i := 1; i < failures && d < o.MaxRetryDelay; i++ {
		d *= RetryFactor
	}
	return wait.Jitter(min(d, o.MaxRetryDelay), RetryJitter)
}

// Target is what a cluster name should be: the cluster built from Config (with Options), which came from Object.
type Target struct {
	// Config reaches the cluster. It is copied by Want; the caller may change it afterwards. Two targets whose
	// configs are equal (EqualConfigs) are the same cluster: wanting it again changes nothing.
	Config *rest.Config

	// Options are applied to this cluster only, after EngagerOptions.ClusterOptions.
	Options []cluster.Option

	// Object, if set, is the object the cluster came from (a Secret, a Cluster API Cluster, a ClusterProfile):
	// the engager records its Events on it, and a NewCluster constructor can read it.
	Object runtime.Object

	// Source says in words where the config came from, such as `key "kubeconfig" of Secret ns/name`. It is
	// logged with the key "source" and ends the Events' notes ("... from <Source>").
	Source string
}

// OutcomeKind says what happened to a cluster name.
type OutcomeKind string

// The outcomes an Engager reports.
const (
	// OutcomeEngaging: the cluster's cache has synced and the cluster is being handed to the Aware. From this
	// moment ClusterNames lists it, so a component that reacts to the engagement finds it listed.
	OutcomeEngaging OutcomeKind = "Engaging"
	// OutcomeAdded: the cluster is engaged under a name that had none.
	OutcomeAdded OutcomeKind = "Added"
	// OutcomeReplaced: the cluster is engaged in place of the one built from an earlier config, which is stopped.
	OutcomeReplaced OutcomeKind = "Replaced"
	// OutcomeUnchanged: Want found the cluster engaged with an equal config and did nothing.
	OutcomeUnchanged OutcomeKind = "Unchanged"
	// OutcomeFailed: an attempt failed (Err says why, naming the cluster); it is tried again after RetryIn (never
	// for RunOnce, whose RetryIn is zero). A cluster engaged before under the name stays engaged.
	OutcomeFailed OutcomeKind = "Failed"
	// OutcomeRemoved: the cluster engaged under the name was disengaged and stopped, because Remove (or WantOnly)
	// said the name should be gone.
	OutcomeRemoved OutcomeKind = "Removed"
)

// Outcome is what an Engager reports to EngagerOptions.OnOutcome.
type Outcome struct {
	// Name is the cluster's name.
	Name multicluster.ClusterName
	// Kind says what happened.
	Kind OutcomeKind
	// Target is the target the outcome is about; for OutcomeRemoved, the zero Target.
	Target Target
	// Cluster is the cluster engaged (OutcomeEngaging, OutcomeAdded, OutcomeReplaced, OutcomeUnchanged) or
	// disengaged (OutcomeRemoved); nil otherwise.
	Cluster cluster.Cluster
	// Err is why an attempt failed (OutcomeFailed). It names the cluster, and the credentials of the target's
	// config are redacted from its message.
	Err error
	// RetryIn is how long until the next attempt (OutcomeFailed while retrying).
	RetryIn time.Duration
	// Duration is how long the attempt took, from building the cluster to its engagement (OutcomeAdded,
	// OutcomeReplaced) or failure (OutcomeFailed).
	Duration time.Duration
}
