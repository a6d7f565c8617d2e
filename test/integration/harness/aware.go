// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package harness

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Engagements is a multicluster.Aware that records which clusters are engaged with it (from Engage until the
// context they were engaged with ends), and when clusters were engaged and disengaged, for tests of providers. It is
// safe for concurrent use; create it with NewEngagements.
type Engagements struct {
	// Refuse, if set, is asked first about every engagement: an error it returns fails the engagement, which is
	// then not recorded.
	Refuse func(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error

	mu           sync.Mutex
	engaged      map[multicluster.ClusterName]cluster.Cluster
	contexts     map[multicluster.ClusterName]context.Context
	engagedAt    map[multicluster.ClusterName]time.Time
	disengagedAt map[multicluster.ClusterName]time.Time
	count        int
	changed      chan struct{}
}

var _ multicluster.Aware = &Engagements{}

// NewEngagements returns a recorder of no engagement.
func NewEngagements() *Engagements {
	return &Engagements{
		engaged:      map[multicluster.ClusterName]cluster.Cluster{},
		contexts:     map[multicluster.ClusterName]context.Context{},
		engagedAt:    map[multicluster.ClusterName]time.Time{},
		disengagedAt: map[multicluster.ClusterName]time.Time{},
		changed:      make(chan struct{}, 1),
	}
}

// Engage records cl as engaged under name until ctx ends (unless another cluster is engaged under name by then).
func (r *Engagements) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	if r.Refuse != nil {
		if err := r.Refuse(ctx, name, cl); err != nil {
			return err
		}
	}
	now := time.Now()
	r.mu.Lock()
	r.engaged[name], r.contexts[name], r.engagedAt[name] = cl, ctx, now
	r.count++
	r.mu.Unlock()
	r.notify()
	context.AfterFunc(ctx, func() {
		now := time.Now()
		r.mu.Lock()
		if r.engaged[name] == cl {
			delete(r.engaged, name)
			delete(r.contexts, name)
			r.disengagedAt[name] = now
		}
		r.mu.Unlock()
		r.notify()
	})
	return nil
}

func (r *Engagements) notify() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// Names returns the names of the engaged clusters, sorted.
func (r *Engagements) Names() []multicluster.ClusterName {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]multicluster.ClusterName, 0, len(r.engaged))
	for n := range r.engaged {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Cluster returns the cluster engaged under name, or nil.
func (r *Engagements) Cluster(name multicluster.ClusterName) cluster.Cluster {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.engaged[name]
}

// Context returns the context the cluster engaged under name was engaged with, or nil.
func (r *Engagements) Context(name multicluster.ClusterName) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.contexts[name]
}

// Count returns how many engagements were recorded.
func (r *Engagements) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count
}

// EngagedAt returns when a cluster was last engaged under name (the zero time if never).
func (r *Engagements) EngagedAt(name multicluster.ClusterName) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.engagedAt[name]
}

// DisengagedAt returns when the cluster engaged under name last ended (the zero time if never).
func (r *Engagements) DisengagedAt(name multicluster.ClusterName) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.disengagedAt[name]
}

// WaitFor blocks until cond holds, checking it again whenever an engagement starts or ends, and fails the test
// after timeout (DefaultTimeout if zero). It returns when cond first held, as precisely as that allows.
func (r *Engagements) WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-r.changed:
		case <-deadline.C:
			t.Fatalf("timed out after %s waiting for %s; engaged: %v", timeout, what, r.Names())
		}
	}
}
