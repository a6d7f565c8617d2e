// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package lifecycle

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	clustersprovider "sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// A cluster's lifetime is the provider's run context, never a reconcile's: reconcile contexts that end (here by a
// ReconciliationTimeout of 200ms) never disengage a cluster.
//
// The cluster is discovered by a controller of the host cluster (an inventory ConfigMap names the member), whose
// reconciler adds it to the provider with its own, short-lived reconcile context, as discovery controllers of
// real providers do. The fleet controller's reconciles of that cluster outlive their 200ms too. Long after both
// kinds of reconcile contexts have ended, the cluster is still gettable, its cache still runs, its events are
// still reconciled, and it was engaged once.
//
// A provider that hung the cluster off the context it was added with would disengage it as soon as the
// discovery reconcile returned; a controller that engaged sources with a reconcile's context would stop them with
// the first timed-out reconcile.
func TestReconcileContextsDoNotEndClusters(t *testing.T) {
	const (
		ns        = "lc-whose-context"
		timeout   = 200 * time.Millisecond
		inventory = "lc-inventory"
	)
	ensureNamespace(t, "member-0", ns)
	createConfigMap(t, "member-0", ns, "slow")

	p := clustersprovider.New()
	mgr := newManager(t, p)
	cl := memberCluster(t, "member-0", ns, "discovered")

	// The discovery controller of the host: it adds the cluster an inventory ConfigMap names.
	var discoveryCtxEnded atomic.Bool
	err := builder.ControllerManagedBy(mgr.GetLocalManager()).
		Named("inventory").
		For(&corev1.ConfigMap{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			return o.GetNamespace() == inventory
		}))).
		WithOptions(controller.Options{ReconciliationTimeout: timeout}).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			context.AfterFunc(ctx, func() { discoveryCtxEnded.Store(true) })
			if _, err := p.Get(ctx, multicluster.ClusterName(req.Name)); err == nil {
				return reconcile.Result{}, nil
			}
			return reconcile.Result{}, p.Add(ctx, multicluster.ClusterName(req.Name), cl)
		}))
	if err != nil {
		t.Fatal(err)
	}

	// The fleet controller: its reconciles of "slow" wait until their context ends.
	log := &eventLog{}
	src := newCountingSource(log.configMapSource())
	rec := harness.NewRecorder()
	var timedOut atomic.Int32
	ctrl, err := mccontroller.New("whose-context", mgr, mccontroller.Options{
		ReconciliationTimeout: timeout,
		Reconciler: mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			rec.Add(req.ClusterName.String() + "/" + req.Name)
			if req.Name == "slow" && timedOut.Load() == 0 {
				<-ctx.Done()
				if errors.Is(ctx.Err(), context.DeadlineExceeded) {
					timedOut.Add(1)
				}
			}
			return reconcile.Result{}, nil
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.MultiClusterWatch(src); err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	ensureNamespace(t, mcenvtest.HostName, inventory)
	createConfigMap(t, mcenvtest.HostName, inventory, "discovered")

	harness.Eventually(t, 0, "the discovered cluster engaged", func() bool {
		_, err := mgr.GetCluster(t.Context(), "discovered")
		return err == nil
	})
	harness.Eventually(t, 0, "the discovery reconcile's context ended", discoveryCtxEnded.Load)
	harness.Eventually(t, 0, "a fleet reconcile timed out", func() bool { return timedOut.Load() > 0 })

	// Many ReconciliationTimeouts later, the cluster is still engaged.
	harness.Consistently(t, 10*timeout, "the cluster stays engaged", func() bool {
		got, err := mgr.GetCluster(t.Context(), "discovered")
		return err == nil && got == cl && !cl.isStopped()
	})
	createConfigMap(t, "member-0", ns, "later")
	harness.Eventually(t, 0, "a later change reconciled", func() bool { return rec.Has("discovered/later") })
	if n := src.count("discovered"); n != 1 {
		t.Errorf("the cluster was engaged %d times, want once", n)
	}
}
