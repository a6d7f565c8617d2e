// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"sigs.k8s.io/multicluster-runtime/internal/metrics"
	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/controller/fairqueue"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	mcsource "sigs.k8s.io/multicluster-runtime/pkg/source"
)

// syncRetry paces the restarts of a per-cluster source that did not sync in time.
var syncRetry = wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.1, Steps: 1 << 30, Cap: 2 * time.Minute}

// engagement is one cluster engaged with the controller: its context is the one the cluster was engaged with, and
// each of its sources runs with a lifetime derived from it (clusters.WithLifetime), which the controller cancels
// when the engagement ends before that context does.
type engagement[request mcreconcile.ClusterAware[request]] = clusters.Engagement[clusterWork[request]]

// clusterWork is the controller's state of an engaged cluster: its sources and its running reconciles, guarded
// by the controller's mu.
type clusterWork[request mcreconcile.ClusterAware[request]] struct {
	// gate is the work gate the coordinator attached to the engagement (clusters.WithWorkGate), nil if the work on
	// the cluster is not fenced: every reconcile of the engagement passes it. It is set at Engage and never changes.
	gate clusters.WorkGate
	// cancels cancels the context of each started source, by slot.
	cancels []context.CancelFunc
	// work ends with the engagement: with its context, or when the engagement is stopped (cancelWork, called by
	// stopLocked). The reconciles of the cluster whose own context ends only with the controller end with it
	// (reconcileContext), without a registration of their own.
	work       context.Context
	cancelWork context.CancelFunc
	// reconciles cancels the other reconciles of the cluster that run now (those with a deadline of their own).
	reconciles []*runningReconcile
	// pending are the cluster's sources built before the controller started; they start when it starts.
	pending []clusterSource[request]
	// unsynced counts the cluster's sources that have not synced yet.
	unsynced int32
	// stopped is set when the engagement ends before its context: the cluster was replaced, failed to engage, or
	// the controller stopped.
	stopped bool
}

// endedLocked reports whether the engagement has ended.
func endedLocked[request mcreconcile.ClusterAware[request]](eng *engagement[request]) bool {
	return eng.Value.stopped || eng.Ended()
}

// stopLocked ends the engagement before its context ends: every source of the cluster stops, and so does every
// reconcile of it that runs.
func (w *clusterWork[request]) stopLocked() {
	w.stopped = true
	for _, cancel := range w.cancels {
		if cancel != nil {
			cancel()
		}
	}
	w.cancels = nil
	if w.cancelWork != nil {
		w.cancelWork()
	}
	for _, r := range w.reconciles {
		r.cancel()
	}
	w.reconciles = nil
}

// clusterSource is the source of one cluster built from a multi-cluster source.
type clusterSource[request mcreconcile.ClusterAware[request]] struct {
	from mcsource.TypedSource[client.Object, request]
	src  source.TypedSource[request]
	slot int // the source's slot in the engagement's cancels
}

// Engage starts the controller's sources for the cluster, in the background, for the lifetime of ctx. It does not
// block. Engaging the same instance again is a no-op; a different instance under the same name replaces the first,
// whose sources are stopped before the new ones start. If building a source for the cluster fails, nothing is
// started for it and the error names the cluster.
func (c *mcController[request]) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	c.mu.Lock()
	defer c.mu.Unlock()

	if c.runCtx != nil && c.runCtx.Err() != nil {
		return nil
	}
	eng, replaced := c.engagements.Engage(ctx, name, cl)
	if eng == nil {
		return nil
	}
	if replaced != nil {
		replaced.Value.stopLocked()
	}
	eng.Value.gate = clusters.WorkGateFrom(ctx)
	eng.Value.work, eng.Value.cancelWork = clusters.WithLifetime(eng.Context())

	var built []clusterSource[request]
	for _, from := range c.sources {
		src, ok, err := from.ForCluster(name, cl)
		if err != nil {
			c.engagements.Forget(eng)
			eng.Value.stopLocked()
			metrics.ClusterErrors.WithLabelValues(name.String(), "controller/"+c.name, "source").Inc()
			return fmt.Errorf("controller %q: building source %v for cluster %q: %w", c.name, from, name, err)
		}
		if ok {
			built = append(built, clusterSource[request]{from: from, src: src})
		}
	}
	c.log.V(1).Info("Engaged cluster", "cluster", name, "sources", len(built))

	for _, cs := range built {
		c.startLocked(eng, cs)
	}
	return nil
}

// disengaged runs when the context of an engagement ends: the requests still queued for the cluster are dropped,
// unless the name has been engaged again since, whose requests they are then.
func (c *mcController[request]) disengaged(eng *engagement[request]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.engagements.Get(eng.Name()) != nil {
		return
	}
	if forgetter, ok := c.queue.(fairqueue.ClusterForgetter); ok {
		forgetter.ForgetCluster(eng.Name())
	}
	c.log.V(1).Info("Disengaged cluster", "cluster", eng.Name())
}

// MultiClusterWatch registers a multi-cluster source and starts it for every cluster engaged so far.
func (c *mcController[request]) MultiClusterWatch(from mcsource.TypedSource[client.Object, request]) error {
	if from == nil {
		return fmt.Errorf("controller %q: cannot watch a nil source", c.name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()

	c.sources = append(c.sources, from)
	var errs []error
	for _, eng := range c.engagements.All() {
		name := eng.Name()
		src, ok, err := from.ForCluster(name, eng.Cluster())
		if err != nil {
			metrics.ClusterErrors.WithLabelValues(name.String(), "controller/"+c.name, "source").Inc()
			errs = append(errs, fmt.Errorf("controller %q: building source %v for cluster %q: %w", c.name, from, name, err))
			continue
		}
		if ok {
			c.startLocked(eng, clusterSource[request]{from: from, src: src})
		}
	}
	return errors.Join(errs...)
}

// startLocked starts a cluster's source if the controller runs, and keeps it for later otherwise.
func (c *mcController[request]) startLocked(eng *engagement[request], cs clusterSource[request]) {
	w := &eng.Value
	w.unsynced++
	cs.slot = len(w.cancels)
	w.cancels = append(w.cancels, nil)
	if c.queue == nil {
		w.pending = append(w.pending, cs)
		return
	}
	c.runSourceLocked(eng, cs)
}

// runSourceLocked runs a cluster's source (runSource) in a goroutine of its own, with its first context made under
// c.mu, which the caller holds: a thousand clusters engaged together do not each take the lock again as their
// sources begin. c.mu must be held.
func (c *mcController[request]) runSourceLocked(eng *engagement[request], cs clusterSource[request]) {
	if srcCtx, ok := c.sourceContextLocked(eng, cs.slot); ok {
		go c.runSource(srcCtx, eng, cs, c.queue)
	}
}

// sourceContext returns a new context for the source in slot, derived from the engagement's, after cancelling the
// slot's previous one. It returns false if the engagement has ended.
func (c *mcController[request]) sourceContext(eng *engagement[request], slot int) (context.Context, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sourceContextLocked(eng, slot)
}

// sourceContextLocked is sourceContext with c.mu held.
func (c *mcController[request]) sourceContextLocked(eng *engagement[request], slot int) (context.Context, bool) {
	w := &eng.Value
	if slot < len(w.cancels) && w.cancels[slot] != nil {
		w.cancels[slot]()
		w.cancels[slot] = nil
	}
	if endedLocked(eng) {
		return nil, false
	}
	ctx, cancel := clusters.WithLifetime(eng.Context())
	w.cancels[slot] = cancel
	return ctx, true
}

// runSource starts one cluster's source on queue with srcCtx (from sourceContext) and waits for it to sync, within the
// cache sync timeout. A source that fails to start or sync is logged, counted and restarted with backoff, each
// time with a new context, until it syncs or the cluster's engagement ends. It returns once the source has synced;
// the source itself lives on until the engagement ends.
func (c *mcController[request]) runSource(srcCtx context.Context, eng *engagement[request], cs clusterSource[request], queue workqueue.TypedRateLimitingInterface[request]) {
	var ok bool
	backoff := syncRetry
	for attempt := 1; ; attempt++ {
		started := time.Now()
		err := c.startAndSync(srcCtx, cs.src, queue)
		if err == nil {
			metrics.SourceSyncDuration.WithLabelValues(c.name).Observe(time.Since(started).Seconds())
			if log := c.log.V(1); log.Enabled() {
				log.Info("Source synced", "cluster", eng.Name(), "source", fmt.Sprint(cs.src), "attempt", attempt)
			}
			c.mu.Lock()
			eng.Value.unsynced--
			c.mu.Unlock()
			// The source runs until srcCtx ends: with the engagement, or when the engagement is stopped.
			return
		}
		// Stop the failed source; the next attempt's context, which ends with the engagement, paces the retry.
		if srcCtx, ok = c.sourceContext(eng, cs.slot); !ok {
			return
		}

		delay := backoff.Step()
		metrics.ClusterErrors.WithLabelValues(eng.Name().String(), "controller/"+c.name, "sync").Inc()
		c.log.Error(err, "Source of cluster did not sync, restarting it", "cluster", eng.Name(), "source", fmt.Sprint(cs.src),
			"attempt", attempt, "timeout", c.cacheSyncTimeout, "retryAfter", delay)
		timer := time.NewTimer(delay)
		select {
		case <-srcCtx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}

		src, ok, err := cs.from.ForCluster(eng.Name(), eng.Cluster())
		if err != nil || !ok {
			c.log.Error(err, "Cannot rebuild the source of cluster, giving up on it", "cluster", eng.Name(), "source", fmt.Sprint(cs.src))
			return
		}
		cs.src = src
	}
}

// startAndSync starts src on the controller's queue and waits, within the cache sync timeout, for it to sync.
func (c *mcController[request]) startAndSync(ctx context.Context, src source.TypedSource[request], queue workqueue.TypedRateLimitingInterface[request]) error {
	if err := src.Start(ctx, queue); err != nil {
		return fmt.Errorf("starting source: %w", err)
	}
	syncing, ok := src.(source.TypedSyncingSource[request])
	if !ok {
		return nil
	}
	// The timeout is not a context derived from ctx with the context package, which would leave ctx a map of
	// children for the rest of its life: it watches ctx instead.
	syncCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cacheSyncTimeout)
	defer cancel()
	defer clusters.AfterFunc(ctx, cancel)()
	return syncing.WaitForSync(syncCtx)
}

// UnsyncedClusters returns, sorted, the names of the engaged clusters with at least one source of this controller
// that has not synced yet: still syncing, or retrying after a sync failure. A controller that is not running
// (before it starts, or on a replica waiting for leader election) reports none, so that standby replicas count as
// ready. It implements mcmanager.ClusterSyncReporter, which mcmanager.FleetReadyzCheck uses.
func (c *mcController[request]) UnsyncedClusters() []multicluster.ClusterName {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.queue == nil {
		return nil
	}
	var names []multicluster.ClusterName
	for _, eng := range c.engagements.All() {
		if eng.Value.unsynced > 0 && !eng.Value.stopped {
			names = append(names, eng.Name())
		}
	}
	return names
}
