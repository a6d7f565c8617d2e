// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

var (
	_ multicluster.Provider         = &Engager{}
	_ multicluster.ProviderRunnable = &Engager{}
	_ multicluster.ClusterLister    = &Engager{}
)

// Engager makes the clusters engaged under each name follow what a provider wants: the provider says "this name
// should be this config" (Want) or "this name should be gone" (Remove), from its discovery loop or its controller,
// and the engager builds, starts, syncs, engages, replaces, retries and stops the clusters. It is the lifecycle of
// every provider of this repository that discovers clusters from a source, and is a provider by itself (Get,
// IndexField, ClusterNames, Start): a provider can embed it and add only what is specific to its source. Create it
// with NewEngager; all methods are safe for concurrent use.
//
// Guarantees:
//
//   - One attempt at a time per name, always towards the latest wanted config: a Want or Remove that changes what
//     a name should be while an attempt for it is in flight aborts that attempt (its cluster is stopped, even if
//     its cache never syncs), and the latest config is applied next. Names never wait for each other.
//   - Wanting the config that is engaged (EqualConfigs) changes nothing (OutcomeUnchanged).
//   - A changed config replaces the cluster without a gap: the new cluster is built (NewCluster), started, synced
//     (bounded by the set's WaitCacheTimeout) and engaged while the old one serves, and only then is the old one
//     stopped; its teardown never removes the new one. If the new one fails, the old one stays engaged.
//   - Remove disengages and stops the cluster before it returns: Get no longer finds it.
//   - A failed attempt (building, starting, syncing or engaging), and a wanted cluster that stops on its own, are
//     tried again on one policy: after RetryDelay, doubling, at most MaxRetryDelay apart, with up to 10% jitter,
//     until it works or what is wanted changes (which is tried at once). Nothing else is retried.
//   - Every outcome is reported (OnOutcome), logged with the key "cluster" and, for a target with an Object,
//     recorded as an Event on it; errors name the cluster and never show the credentials of its config.
//   - A cluster is gettable (Get) from the start of its attempt and listed (ClusterNames) from when its cache has
//     synced and it is being engaged, until it is disengaged.
//   - Cheap while nothing changes: an engaged cluster costs an entry in two maps and no goroutine. A worker
//     goroutine exists only while a name has an attempt in flight, and a name waiting for its retry costs a timer.
//
// Clusters live in the context of the Start (or RunOnce) that engaged them, and are engaged with its Aware. What
// is wanted is recorded before Start and between runs, and engaged when a run starts.
type Engager struct {
	opts EngagerOptions
	set  *Clusters[cluster.Cluster]

	// reportMu guards recorder and log, which start as EngagerOptions.EventRecorder and Logger and are replaced by
	// SetupWithManager, and setUp, set by SetupWithManager.
	reportMu sync.RWMutex
	recorder events.EventRecorder
	log      logr.Logger
	setUp    bool
	// events paces the Normal Events (EngagedEventRate); pacing counts its goroutine, which Start waits for and
	// which a RunOnce leaves to end with its context.
	events *eventPacer
	pacing sync.WaitGroup

	// mu guards slots and run, and every field of every slot. It is never held while a cluster is built, started,
	// synced or engaged, nor while outcomes are reported.
	mu    sync.Mutex
	slots map[multicluster.ClusterName]*slot
	// run is the Start or RunOnce running; nil when none runs.
	run *engageRun
	// workers counts the worker goroutines.
	workers sync.WaitGroup
}

// engageRun is one Start or RunOnce: the context clusters live in, the Aware they are engaged with, and how.
type engageRun struct {
	ctx   context.Context
	aware multicluster.Aware
	log   logr.Logger
	// once is set for RunOnce: failures are not retried but collected in errs.
	once bool
	errs []error
	// closed is set once the run starts no more workers (it is ending, or it is a RunOnce that started its own).
	closed bool
}

// live reports whether the run may start work. The caller holds Engager.mu.
func (r *engageRun) live() bool {
	return r != nil && !r.closed && r.ctx.Err() == nil
}

// slot is what the engager wants and has for one name.
type slot struct {
	// want is what the name should be, if wanted; gen counts the changes of what the name should be.
	want   Target
	wanted bool
	gen    uint64

	// busy is set while a worker owns the slot; abort aborts its attempt in flight (nil when none is).
	busy  bool
	abort context.CancelFunc
	// retry is the timer of the next attempt after a failure; failures counts the consecutive failures.
	retry    *time.Timer
	failures int

	// engaged is the cluster engaged (or being engaged) under the name, config the config it was built from, life
	// its lifetime (the context it was engaged with), run the run that engaged it and release the end of the
	// attempt's context it lives in. engaged is nil when there is none.
	engaged cluster.Cluster
	config  *rest.Config
	life    context.Context
	run     *engageRun
	release context.CancelFunc
}

// setEngaged makes en the slot's engaged cluster (none, for the zero engagement); the config is the caller's. The
// caller holds Engager.mu.
func (s *slot) setEngaged(en engagement) {
	s.engaged, s.life, s.run, s.release = en.cluster, en.life, en.run, en.release
	if en.cluster == nil {
		s.config = nil
	}
}

// current reports whether the slot's engaged cluster is alive. The caller holds Engager.mu.
func (s *slot) current() bool {
	return s.engaged != nil && s.life.Err() == nil
}

// NewEngager returns an engager configured by opts, with the defaults of EngagerOptions applied. It engages
// nothing until Start or RunOnce.
func NewEngager(opts EngagerOptions) *Engager {
	opts = opts.complete()
	return &Engager{
		opts: opts, set: opts.Clusters, slots: map[multicluster.ClusterName]*slot{},
		recorder: opts.EventRecorder, log: opts.Logger, events: newEventPacer(opts.EngagedEventRate, opts.EngagedEventBurst),
	}
}

// HostManager is what Engager.SetupWithManager uses of the multi-cluster manager a provider is set up with
// (mcmanager.Manager is one): its host manager, for Events, and its logger.
type HostManager interface {
	GetLocalManager() manager.Manager
	GetLogger() logr.Logger
}

// SetupWithManager prepares the engager of a provider that is set up with a manager (see the provider convention in
// pkg/multicluster) to report as the provider's controller does: it records Events with the host manager's
// recorder for controllerName and logs with the manager's logger named controllerName, instead of
// EngagerOptions.EventRecorder and Logger. Call it from the provider's SetupWithManager, before Start. It returns an
// error for a nil manager, and when called a second time.
func (e *Engager) SetupWithManager(mgr HostManager, controllerName string) error {
	if mgr == nil {
		return errors.New("the manager is nil")
	}
	e.reportMu.Lock()
	defer e.reportMu.Unlock()
	if e.setUp {
		return errors.New("SetupWithManager was already called")
	}
	e.setUp = true
	e.recorder = mgr.GetLocalManager().GetEventRecorder(controllerName)
	e.log = mgr.GetLogger().WithName(controllerName)
	return nil
}

// reporters returns the recorder and the logger set, if any.
func (e *Engager) reporters() (events.EventRecorder, logr.Logger) {
	e.reportMu.RLock()
	defer e.reportMu.RUnlock()
	return e.recorder, e.log
}

// Want says that the cluster named name should be the one target describes. If it is already (the engaged
// cluster was built from an equal config), nothing changes. Otherwise the engager builds and engages it in the
// background, replacing the cluster engaged under the name if any, and aborting an attempt in flight for an
// earlier config. Want never blocks on a cluster. Before Start, what is wanted is recorded and engaged when Start
// runs.
func (e *Engager) Want(name multicluster.ClusterName, target Target) {
	target.Config = rest.CopyConfig(target.Config)
	e.mu.Lock()
	o := e.wantLocked(name, target)
	r := e.run
	e.mu.Unlock()
	e.report(r, o...)
}

// Remove says that the name should be gone: the cluster engaged under it is disengaged and stopped (its context
// ends) before Remove returns, an attempt in flight or a retry is abandoned, and nothing is engaged under the name
// until it is wanted again. Unknown names are ignored.
func (e *Engager) Remove(name multicluster.ClusterName) {
	e.mu.Lock()
	o := e.removeLocked(name)
	r := e.run
	e.mu.Unlock()
	e.report(r, o...)
}

// WantOnly says that the clusters should be exactly desired: each name of desired is wanted (Want), and every
// other name the engager wants or has is removed (Remove). It suits a provider that reads its whole source at
// once, such as a directory of kubeconfig files.
func (e *Engager) WantOnly(desired map[multicluster.ClusterName]Target) {
	desired = copyTargets(desired)
	e.mu.Lock()
	outcomes := e.wantOnlyLocked(desired)
	r := e.run
	e.mu.Unlock()
	e.report(r, outcomes...)
}

// Start engages what is wanted, now and later, with aware, in clusters whose contexts derive from ctx, until ctx
// ends. Then it stops every cluster it engaged, waits for its goroutines and returns nil; what is wanted stays
// recorded for a later Start. It returns an error at once if Start or RunOnce is running.
func (e *Engager) Start(ctx context.Context, aware multicluster.Aware) error {
	r := &engageRun{ctx: ctx, aware: aware, log: e.logger(ctx)}
	e.mu.Lock()
	if e.run != nil {
		e.mu.Unlock()
		return errors.New("the engager is already running")
	}
	e.run = r
	for name, s := range e.slots {
		if s.wanted {
			e.startWorkerLocked(name, s)
		}
	}
	e.mu.Unlock()

	<-ctx.Done()
	e.finish(r)
	e.pacing.Wait()
	return nil
}

// RunOnce engages desired once, like WantOnly followed by one attempt per changed name, all in parallel, and
// returns when every attempt has ended: with an error joining the failures, each naming its cluster, or nil.
// Failures are not retried; calling RunOnce again tries them again (and applies what changed meanwhile). Clusters
// engaged by RunOnce live until ctx ends or a later call removes or replaces them. It returns an error at once if
// Start or RunOnce is running.
func (e *Engager) RunOnce(ctx context.Context, aware multicluster.Aware, desired map[multicluster.ClusterName]Target) error {
	desired = copyTargets(desired)
	r := &engageRun{ctx: ctx, aware: aware, log: e.logger(ctx), once: true}
	e.mu.Lock()
	if e.run != nil {
		e.mu.Unlock()
		return errors.New("the engager is already running")
	}
	e.run = r
	outcomes := e.wantOnlyLocked(desired)
	// The workers started above are all of this run's; a Want from elsewhere meanwhile is recorded for later.
	r.closed = true
	e.mu.Unlock()
	e.report(r, outcomes...)

	e.workers.Wait()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.run = nil
	return errors.Join(r.errs...)
}

// Get returns the named cluster from the start of its attempt until it is disengaged, or an error matching
// multicluster.ErrClusterNotFound.
func (e *Engager) Get(ctx context.Context, name multicluster.ClusterName) (cluster.Cluster, error) {
	return e.set.Get(ctx, name)
}

// IndexField registers a field index on every cluster, current and future (see Clusters.IndexField).
func (e *Engager) IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
	return e.set.IndexField(ctx, obj, field, extractValue)
}

// ClusterNames returns, sorted, the names whose cluster has synced and is engaged or being engaged: a cluster is
// listed from the moment it is handed to the Aware (so a component reacting to the engagement finds it listed)
// until it is disengaged. Clusters still starting are gettable but not listed.
func (e *Engager) ClusterNames() []multicluster.ClusterName {
	e.mu.Lock()
	defer e.mu.Unlock()
	names := make([]multicluster.ClusterName, 0, len(e.slots))
	for name, s := range e.slots {
		if s.current() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// copyTargets returns a copy of desired whose targets have copies of their configs.
func copyTargets(desired map[multicluster.ClusterName]Target) map[multicluster.ClusterName]Target {
	out := make(map[multicluster.ClusterName]Target, len(desired))
	for name, t := range desired {
		t.Config = rest.CopyConfig(t.Config)
		out[name] = t
	}
	return out
}

// logger is the logger of a run started with ctx.
func (e *Engager) logger(ctx context.Context) logr.Logger {
	if _, log := e.reporters(); log.GetSink() != nil {
		return log
	}
	return logf.FromContext(ctx)
}

// wantLocked records t as what name should be and sees that a worker applies it. It returns the outcome to report,
// if any. The caller holds mu.
func (e *Engager) wantLocked(name multicluster.ClusterName, t Target) []Outcome {
	s := e.slots[name]
	if s == nil {
		s = &slot{}
		e.slots[name] = s
	}
	if s.wanted && EqualConfigs(s.want.Config, t.Config) {
		// The same cluster: keep the latest object and words for the reports.
		s.want = t
		switch {
		case s.busy || s.retry != nil:
			return nil
		case s.current():
			return []Outcome{{Name: name, Kind: OutcomeUnchanged, Target: t, Cluster: s.engaged}}
		}
		// Wanted, idle, and nothing alive: the cluster went away (its run ended, or it stopped). Engage it again.
	} else {
		s.want, s.wanted = t, true
		s.gen++
		s.failures = 0
		if s.abort != nil {
			s.abort()
		}
		if s.retry != nil {
			s.retry.Stop()
			s.retry = nil
		}
	}
	e.startWorkerLocked(name, s)
	return nil
}

// removeLocked makes name unwanted, disengages its cluster and abandons its attempt or retry. The caller holds mu.
func (e *Engager) removeLocked(name multicluster.ClusterName) []Outcome {
	s := e.slots[name]
	if s == nil {
		return nil
	}
	s.want, s.wanted = Target{}, false
	s.gen++
	s.failures = 0
	if s.abort != nil {
		s.abort()
	}
	if s.retry != nil {
		s.retry.Stop()
		s.retry = nil
	}
	engaged := s.engaged
	e.dropLocked(name, s)
	if !s.busy {
		delete(e.slots, name)
	}
	if engaged == nil {
		return nil
	}
	return []Outcome{{Name: name, Kind: OutcomeRemoved, Cluster: engaged}}
}

// dropLocked stops the cluster engaged under name, if any, and forgets it. The set is told under mu, so that no
// worker adds a cluster under the name in between. The caller holds mu.
func (e *Engager) dropLocked(name multicluster.ClusterName, s *slot) {
	e.set.Remove(name)
	if s.release != nil {
		s.release()
	}
	s.setEngaged(engagement{})
}

// wantOnlyLocked wants every target of desired and removes every other name. The caller holds mu.
func (e *Engager) wantOnlyLocked(desired map[multicluster.ClusterName]Target) []Outcome {
	var outcomes []Outcome
	for name, t := range desired {
		outcomes = append(outcomes, e.wantLocked(name, t)...)
	}
	for name, s := range e.slots {
		if _, ok := desired[name]; !ok && (s.wanted || s.engaged != nil) {
			outcomes = append(outcomes, e.removeLocked(name)...)
		}
	}
	return outcomes
}

// startWorkerLocked starts a worker for the slot unless it has one or no run may start one. The caller holds mu.
func (e *Engager) startWorkerLocked(name multicluster.ClusterName, s *slot) {
	if s.busy || !e.run.live() {
		return
	}
	if s.retry != nil {
		s.retry.Stop()
		s.retry = nil
	}
	s.busy = true
	e.workers.Add(1)
	go e.work(e.run, name, s)
}

// finish ends run r of Start: no worker starts any more, the running ones are waited for, and every cluster r
// engaged is stopped and forgotten.
func (e *Engager) finish(r *engageRun) {
	e.mu.Lock()
	r.closed = true
	for _, s := range e.slots {
		if s.retry != nil {
			s.retry.Stop()
			s.retry = nil
		}
	}
	e.mu.Unlock()

	e.workers.Wait()

	e.mu.Lock()
	defer e.mu.Unlock()
	for name, s := range e.slots {
		if s.engaged != nil && s.run == r {
			e.dropLocked(name, s)
		}
		if !s.wanted && s.engaged == nil {
			delete(e.slots, name)
		}
	}
	e.run = nil
}

// report logs, records and hands on outcomes. r is the run they happened in, or nil.
func (e *Engager) report(r *engageRun, outcomes ...Outcome) {
	for _, o := range outcomes {
		e.reportOne(r, o)
	}
}
