package controller

import (
	"context"
	"errors"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/internal/metrics"
	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mccontext "sigs.k8s.io/multicluster-runtime/pkg/context"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// reconcilerFor returns the reconciler the inner controller calls: it drops requests of clusters that have left or
// that the manager's coordinator does not let this process work on now, puts the cluster name in the context and
// cancels the reconcile if its cluster leaves while it runs.
func (c *mcController[request]) reconcilerFor() reconcile.TypedReconciler[request] {
	return reconcile.TypedFunc[request](c.reconcile)
}

func (c *mcController[request]) reconcile(ctx context.Context, req request) (reconcile.Result, error) {
	name := req.Cluster()

	if c.gate != nil && name != mcmanager.LocalCluster {
		// A fencing coordinator (sharding) decides whether this process may work on the cluster now, and waits for
		// the reconciles it let start before it lets another process take the cluster.
		workCtx, done, ok := c.gate.StartClusterWork(ctx, name)
		if !ok {
			metrics.DroppedRequests.WithLabelValues(c.name).Inc()
			c.log.V(1).Info("Dropping request of a cluster this process does not work on now", "cluster", name, "request", req.String())
			return reconcile.Result{}, nil
		}
		defer done()
		ctx = workCtx
	}

	c.mu.Lock()
	eng := c.clusters[name]
	if eng != nil && eng.endedLocked() {
		eng = nil
	}
	c.mu.Unlock()

	if eng != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		// Ends the reconcile when the engagement is stopped (the cluster replaced, the controller stopped)...
		running := &runningReconcile{cancel: cancel}
		c.trackReconcile(eng, running)
		defer c.untrackReconcile(eng, running)
		// ... or when its context ends: an entry in the context's list of watchers when it is a
		// clusters.WithLifetime, not a child registration that would stay allocated in it.
		defer clusters.AfterFunc(eng.ctx, cancel)()
	} else if _, err := c.mgr.GetCluster(ctx, name); errors.Is(err, multicluster.ErrClusterNotFound) {
		// The cluster is gone: the request was queued before it left.
		metrics.DroppedRequests.WithLabelValues(c.name).Inc()
		c.log.V(1).Info("Dropping request of a cluster that is no longer engaged", "cluster", name, "request", req.String())
		return reconcile.Result{}, nil
	}

	return c.do.Reconcile(mccontext.WithCluster(ctx, name), req)
}

// runningReconcile is a reconcile of an engaged cluster that runs now.
type runningReconcile struct {
	cancel context.CancelFunc
}

// trackReconcile records a reconcile of the engagement, which stopping the engagement cancels; if the engagement
// has been stopped already, it cancels the reconcile at once.
func (c *mcController[request]) trackReconcile(eng *engagedCluster[request], r *runningReconcile) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if eng.stopped {
		r.cancel()
		return
	}
	eng.reconciles = append(eng.reconciles, r)
}

// untrackReconcile forgets a finished reconcile of the engagement; the list is released when it is empty.
func (c *mcController[request]) untrackReconcile(eng *engagedCluster[request], r *runningReconcile) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, running := range eng.reconciles {
		if running != r {
			continue
		}
		last := len(eng.reconciles) - 1
		eng.reconciles[i] = eng.reconciles[last]
		eng.reconciles[last] = nil
		eng.reconciles = eng.reconciles[:last]
		break
	}
	if len(eng.reconciles) == 0 {
		eng.reconciles = nil
	}
}
