// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

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
// that this process must not work on now, puts the cluster name in the context and cancels the reconcile if its
// cluster leaves while it runs.
func (c *mcController[request]) reconcilerFor() reconcile.TypedReconciler[request] {
	return reconcile.TypedFunc[request](c.reconcile)
}

func (c *mcController[request]) reconcile(ctx context.Context, req request) (reconcile.Result, error) {
	name := req.Cluster()
	eng, gate, runDone := c.engagementOf(name)

	if gate != nil {
		// A fencing coordinator (sharding) decides whether this process may work on the cluster now, and waits for
		// the reconciles it let start before it lets another process take the cluster.
		workCtx, done, ok := gate.StartWork(ctx)
		if !ok {
			metrics.DroppedRequests.WithLabelValues(c.name).Inc()
			c.log.V(1).Info("Dropping request of a cluster this process does not work on now", "cluster", name, "request", req.String())
			return reconcile.Result{}, nil
		}
		defer done()
		ctx = workCtx
	}

	switch {
	case eng != nil && ctx.Done() == runDone:
		// The reconcile's context ends only with the controller, which stops every engagement when it stops: it
		// ends with the engagement's work (the engagement stopped, or its context ended), at no cost per reconcile.
		ctx = newReconcileContext(ctx, eng.Value.work)
	case eng != nil:
		// A context with an end of its own (a reconcile timeout, a gate's fence) is cancelled when the engagement
		// is stopped (the cluster replaced, the controller stopped)...
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		running := &runningReconcile{cancel: cancel}
		c.trackReconcile(eng, running)
		defer c.untrackReconcile(eng, running)
		// ... or when the engagement's context ends: an entry in the context's list of watchers when it is a
		// clusters.WithLifetime, not a child registration that would stay allocated in it.
		defer clusters.AfterFunc(eng.Context(), cancel)()
	default:
		if _, err := c.mgr.GetCluster(ctx, name); errors.Is(err, multicluster.ErrClusterNotFound) {
			// The cluster is gone: the request was queued before it left.
			metrics.DroppedRequests.WithLabelValues(c.name).Inc()
			c.log.V(1).Info("Dropping request of a cluster that is no longer engaged", "cluster", name, "request", req.String())
			return reconcile.Result{}, nil
		}
	}

	return c.do.Reconcile(mccontext.WithCluster(ctx, name), req)
}

// engagementOf returns the engagement of the named cluster, nil if the controller is not engaged with it; the gate
// a reconcile of the cluster passes, nil if the work on it is not fenced: the gate the coordinator attached to the
// engagement; for a fleet cluster the controller is not engaged with, the manager's, which asks its coordinator;
// and the Done channel of the context the controller runs with (nil before it starts).
func (c *mcController[request]) engagementOf(name multicluster.ClusterName) (*engagement[request], clusters.WorkGate, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch eng := c.engagements.Get(name); {
	case eng != nil:
		return eng, eng.Value.gate, c.runDone
	case c.gate == nil || name == mcmanager.LocalCluster:
		return nil, nil, c.runDone
	default:
		return nil, namedGate{gate: c.gate, name: name}, c.runDone
	}
}

// namedGate is the manager's gate for one cluster.
type namedGate struct {
	gate mcmanager.ClusterWorkGate
	name multicluster.ClusterName
}

func (g namedGate) StartWork(ctx context.Context) (context.Context, func(), bool) {
	return g.gate.StartClusterWork(ctx, g.name)
}

// runningReconcile is a reconcile of an engaged cluster that runs now.
type runningReconcile struct {
	cancel context.CancelFunc
}

// trackReconcile records a reconcile of the engagement, which stopping the engagement cancels; if the engagement
// has been stopped already, it cancels the reconcile at once.
func (c *mcController[request]) trackReconcile(eng *engagement[request], r *runningReconcile) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if eng.Value.stopped {
		r.cancel()
		return
	}
	eng.Value.reconciles = append(eng.Value.reconciles, r)
}

// untrackReconcile forgets a finished reconcile of the engagement; the list is released when it is empty.
func (c *mcController[request]) untrackReconcile(eng *engagement[request], r *runningReconcile) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := &eng.Value
	for i, running := range w.reconciles {
		if running != r {
			continue
		}
		last := len(w.reconciles) - 1
		w.reconciles[i] = w.reconciles[last]
		w.reconciles[last] = nil
		w.reconciles = w.reconciles[:last]
		break
	}
	if len(w.reconciles) == 0 {
		w.reconciles = nil
	}
}
