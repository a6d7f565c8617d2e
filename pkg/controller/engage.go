package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"sigs.k8s.io/multicluster-runtime/internal/metrics"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	mcsource "sigs.k8s.io/multicluster-runtime/pkg/source"
)

// syncRetry paces the restarts of a per-cluster source that did not sync in time.
var syncRetry = wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.1, Steps: 1 << 30, Cap: 2 * time.Minute}

// engagedCluster is one cluster engaged with the controller.
type engagedCluster[request mcreconcile.ClusterAware[request]] struct {
	name    multicluster.ClusterName
	cluster cluster.Cluster
	ctx     context.Context // ends when the cluster's context ends, it is replaced, or the controller stops
	cancel  context.CancelFunc
	// pending are the cluster's sources built before the controller started; they start when it starts.
	pending []clusterSource[request]
	// unsynced counts the cluster's sources that have not synced yet (guarded by the controller's mu).
	unsynced int
}

// clusterSource is the source of one cluster built from a multi-cluster source.
type clusterSource[request mcreconcile.ClusterAware[request]] struct {
	from mcsource.TypedSource[client.Object, request]
	src  source.TypedSource[request]
}

// Engage starts the controller's sources for the cluster, in the background, for the lifetime of ctx. It does not
// block. Engaging the same instance again is a no-op; a different instance under the same name replaces the first,
// whose sources are stopped before the new ones start. If building a source for the cluster fails, nothing is
// started for it and the error names the cluster.
func (c *mcController[request]) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	c.mu.Lock()
	defer c.mu.Unlock()

	if old := c.clusters[name]; old != nil {
		if old.cluster == cl && old.ctx.Err() == nil {
			return nil
		}
		old.cancel()
		delete(c.clusters, name)
	}
	if ctx.Err() != nil || (c.runCtx != nil && c.runCtx.Err() != nil) {
		return nil
	}

	var built []clusterSource[request]
	for _, from := range c.sources {
		src, ok, err := from.ForCluster(name, cl)
		if err != nil {
			metrics.ClusterErrors.WithLabelValues(name.String(), "controller/"+c.name, "source").Inc()
			return fmt.Errorf("controller %q: building source %v for cluster %q: %w", c.name, from, name, err)
		}
		if ok {
			built = append(built, clusterSource[request]{from: from, src: src})
		}
	}

	engCtx, cancel := context.WithCancel(ctx)
	eng := &engagedCluster[request]{name: name, cluster: cl, ctx: engCtx, cancel: cancel}
	c.clusters[name] = eng
	context.AfterFunc(engCtx, func() { c.forget(eng) })
	c.log.V(1).Info("Engaged cluster", "cluster", name, "sources", len(built))

	for _, cs := range built {
		c.startLocked(eng, cs)
	}
	return nil
}

// forget drops the engagement when its context ends, unless the name has been engaged again since.
func (c *mcController[request]) forget(eng *engagedCluster[request]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clusters[eng.name] == eng {
		delete(c.clusters, eng.name)
		if forgetter, ok := c.queue.(clusterForgetter); ok {
			forgetter.ForgetCluster(eng.name)
		}
		c.log.V(1).Info("Disengaged cluster", "cluster", eng.name)
	}
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
	for name, eng := range c.clusters {
		src, ok, err := from.ForCluster(name, eng.cluster)
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
func (c *mcController[request]) startLocked(eng *engagedCluster[request], cs clusterSource[request]) {
	eng.unsynced++
	if c.queue == nil {
		eng.pending = append(eng.pending, cs)
		return
	}
	go c.runSource(eng, cs)
}

// runSource starts one cluster's source and waits for it to sync, within the cache sync timeout. A source that
// fails to start or sync is logged, counted and restarted with backoff until it syncs or the cluster's engagement
// ends. It returns once the source has synced; the source itself lives on until the engagement ends.
func (c *mcController[request]) runSource(eng *engagedCluster[request], cs clusterSource[request]) {
	log := c.log.WithValues("cluster", eng.name, "source", fmt.Sprint(cs.src))
	backoff := syncRetry
	for attempt := 1; ; attempt++ {
		started := time.Now()
		srcCtx, cancelSrc := context.WithCancel(eng.ctx)
		err := c.startAndSync(srcCtx, cs.src)
		if err == nil {
			metrics.SourceSyncDuration.WithLabelValues(c.name).Observe(time.Since(started).Seconds())
			log.V(1).Info("Source synced", "attempt", attempt)
			c.mu.Lock()
			eng.unsynced--
			c.mu.Unlock()
			// The source runs until the engagement ends; release srcCtx then.
			context.AfterFunc(eng.ctx, cancelSrc)
			return
		}
		cancelSrc()
		if eng.ctx.Err() != nil {
			return
		}

		delay := backoff.Step()
		metrics.ClusterErrors.WithLabelValues(eng.name.String(), "controller/"+c.name, "sync").Inc()
		log.Error(err, "Source of cluster did not sync, restarting it", "attempt", attempt, "timeout", c.cacheSyncTimeout, "retryAfter", delay)
		timer := time.NewTimer(delay)
		select {
		case <-eng.ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}

		src, ok, err := cs.from.ForCluster(eng.name, eng.cluster)
		if err != nil || !ok {
			log.Error(err, "Cannot rebuild the source of cluster, giving up on it")
			return
		}
		cs.src = src
	}
}

// startAndSync starts src on the controller's queue and waits, within the cache sync timeout, for it to sync.
func (c *mcController[request]) startAndSync(ctx context.Context, src source.TypedSource[request]) error {
	c.mu.Lock()
	queue := c.queue
	c.mu.Unlock()
	if err := src.Start(ctx, queue); err != nil {
		return fmt.Errorf("starting source: %w", err)
	}
	syncing, ok := src.(source.TypedSyncingSource[request])
	if !ok {
		return nil
	}
	syncCtx, cancel := context.WithTimeout(ctx, c.cacheSyncTimeout)
	defer cancel()
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
	for name, eng := range c.clusters {
		if eng.unsynced > 0 && eng.ctx.Err() == nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}
