package controller

import (
	"context"
	"errors"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/internal/metrics"
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
	c.mu.Unlock()
	if eng != nil && eng.ctx.Err() != nil {
		eng = nil
	}

	if eng != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(eng.ctx, cancel)
		defer stop()
	} else if _, err := c.mgr.GetCluster(ctx, name); errors.Is(err, multicluster.ErrClusterNotFound) {
		// The cluster is gone: the request was queued before it left.
		metrics.DroppedRequests.WithLabelValues(c.name).Inc()
		c.log.V(1).Info("Dropping request of a cluster that is no longer engaged", "cluster", name, "request", req.String())
		return reconcile.Result{}, nil
	}

	return c.do.Reconcile(mccontext.WithCluster(ctx, name), req)
}
