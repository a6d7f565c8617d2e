// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package controller_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mccontext "sigs.k8s.io/multicluster-runtime/pkg/context"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// Clusters engaged with lifetimes (clusters.WithLifetime, as providers engage them) are disengaged entirely when
// their lifetimes end: their sources stop, the controller forgets them, and no goroutine is left.
func TestEndedLifetimeLeavesNothing(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	c := newController(t, "lifetimes", newRecorder())
	src := watchFake(t, c)
	stop := start(t, c)

	run, endRun := clusters.WithLifetime(t.Context())
	defer endRun()
	names := []multicluster.ClusterName{"a", "b", "c"}
	cancels := map[multicluster.ClusterName]context.CancelFunc{}
	for _, name := range names {
		ctx, cancel := clusters.WithLifetime(run)
		cancels[name] = cancel
		if err := c.Engage(ctx, name, &fakeCluster{name: name}); err != nil {
			t.Fatal(err)
		}
	}
	started := map[multicluster.ClusterName]startedSource{}
	for range names {
		st := src.waitStarted(t)
		started[st.cluster] = st
	}
	for _, name := range names {
		if _, err := c.Reconcile(t.Context(), request(name, "obj")); err != nil {
			t.Fatalf("Reconcile(%s) error = %v", name, err)
		}
	}
	if n, running := mccontroller.EngagementsOf(c); n != len(names) || running != 0 {
		t.Fatalf("controller holds %d engagements and %d reconciles, want %d and 0", n, running, len(names))
	}

	cancels["a"]()
	endRun() // ends b and c with the run
	for _, name := range names {
		started[name].waitStopped(t, fmt.Sprintf("the source of %s outlived its cluster's lifetime", name))
	}
	if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, wait.ForeverTestTimeout, true,
		func(context.Context) (bool, error) {
			n, _ := mccontroller.EngagementsOf(c)
			return n == 0, nil
		}); err != nil {
		n, _ := mccontroller.EngagementsOf(c)
		t.Fatalf("controller still holds %d engagements after their lifetimes ended", n)
	}

	stop()
	goleak.VerifyNone(t, ignore)
}

// Replacing a cluster stops the reconciles of the instance it replaces, as the end of its context would.
func TestReplacementCancelsRunningReconciles(t *testing.T) {
	r := newBlockingReconciler()
	c := newController(t, "replace-in-flight", r)
	if err := c.Engage(t.Context(), "a", &fakeCluster{name: "a-1"}); err != nil {
		t.Fatal(err)
	}

	done := r.inFlight(t, c, request("a", "obj"))
	if err := c.Engage(t.Context(), "a", &fakeCluster{name: "a-2"}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Reconcile() error = %v, want context.Canceled", err)
	}
	if _, running := mccontroller.EngagementsOf(c); running != 0 {
		t.Errorf("controller tracks %d reconciles after they returned", running)
	}
}

// contextReconciler hands the context of each reconcile to the test, and returns once that context ends.
type contextReconciler struct{ contexts chan context.Context }

func (r *contextReconciler) Reconcile(ctx context.Context, _ mcreconcile.Request) (reconcile.Result, error) {
	r.contexts <- ctx
	select {
	case <-ctx.Done():
		return reconcile.Result{}, ctx.Err()
	case <-time.After(wait.ForeverTestTimeout):
		return reconcile.Result{}, errors.New("the reconcile context was not cancelled")
	}
}

type runValueKey struct{}

// The reconciles a running controller's workers make end with their cluster's engagement, however it ends (the
// cluster replaced, its context ended, the controller stopped), carry the values of the controller's context and
// the cluster's name, and end what a reconciler derives from their context with them; the controller keeps no
// record of them.
func TestReconcilesOfARunningControllerEndWithTheirEngagement(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(t *testing.T, c mccontroller.Controller, disengage, stop context.CancelFunc)
	}{
		{name: "cluster replaced", end: func(t *testing.T, c mccontroller.Controller, _, _ context.CancelFunc) {
			if err := c.Engage(t.Context(), "a", &fakeCluster{name: "a-2"}); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "cluster context ended", end: func(_ *testing.T, _ mccontroller.Controller, disengage, _ context.CancelFunc) {
			disengage()
		}},
		{name: "controller stopped", end: func(_ *testing.T, _ mccontroller.Controller, _, stop context.CancelFunc) {
			stop()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &contextReconciler{contexts: make(chan context.Context, 1)}
			c := newController(t, "reconcile-context", r)
			src := watchFake(t, c)
			runCtx, stop := context.WithCancel(context.WithValue(t.Context(), runValueKey{}, "run"))
			defer stop()
			stopped := make(chan error, 1)
			go func() { stopped <- c.Start(runCtx) }()
			clusterCtx, disengage := context.WithCancel(t.Context())
			defer disengage()
			if err := c.Engage(clusterCtx, "a", &fakeCluster{name: "a-1"}); err != nil {
				t.Fatal(err)
			}
			src.waitStarted(t).queue.Add(request("a", "obj"))
			ctx := receive(t, r.contexts, "the reconcile did not start")

			if got := ctx.Value(runValueKey{}); got != "run" {
				t.Errorf("the reconcile's context has value %v of the controller's context, want run", got)
			}
			if got, _ := mccontext.ClusterFrom(ctx); got != "a" {
				t.Errorf("the reconcile's context names cluster %q, want a", got)
			}
			derived, cancelDerived := context.WithCancel(ctx)
			defer cancelDerived()
			if ctx.Err() != nil || context.Cause(ctx) != nil || derived.Err() != nil {
				t.Fatalf("the reconcile's context ended before its engagement: %v", ctx.Err())
			}
			if _, running := mccontroller.EngagementsOf(c); running != 0 {
				t.Errorf("the controller tracks %d reconciles, want none", running)
			}

			tc.end(t, c, disengage, stop)
			receive(t, ctx.Done(), "the reconcile's context outlived its engagement")
			receive(t, derived.Done(), "a context derived from the reconcile's outlived its engagement")
			if !errors.Is(ctx.Err(), context.Canceled) || context.Cause(ctx) == nil {
				t.Errorf("the ended reconcile's context has error %v and cause %v, want context.Canceled and a cause",
					ctx.Err(), context.Cause(ctx))
			}
			stop()
			if err := receive(t, stopped, "the controller did not stop"); err != nil {
				t.Errorf("Start() error = %v", err)
			}
		})
	}
}

// Run by a manager, with or without warmup, a controller's reconciles end with the manager. Without warmup the
// controller runs with the context of Start only, and keeps no record of its reconciles; with warmup it runs from
// Warmup's context, and tracks the reconciles its workers make with Start's.
func TestReconcilesOfAManagedControllerEndWithTheManager(t *testing.T) {
	for _, warmup := range []bool{false, true} {
		t.Run(fmt.Sprintf("warmup=%t", warmup), func(t *testing.T) {
			mgr := newManager(t)
			r := &contextReconciler{contexts: make(chan context.Context, 1)}
			c, err := mccontroller.NewUnmanaged("managed", mgr, mccontroller.Options{Reconciler: r, EnableWarmup: ptr.To(warmup)})
			if err != nil {
				t.Fatal(err)
			}
			src := watchFake(t, c)
			if err := mgr.Add(c); err != nil {
				t.Fatal(err)
			}
			engage(t, c, "a")
			ctx, stop := context.WithCancel(t.Context())
			defer stop()
			stopped := make(chan error, 1)
			go func() { stopped <- mgr.Start(ctx) }()
			src.waitStarted(t).queue.Add(request("a", "obj"))
			reconcileCtx := receive(t, r.contexts, "the reconcile did not start")

			wantTracked := 0
			if warmup {
				wantTracked = 1
			}
			if _, running := mccontroller.EngagementsOf(c); running != wantTracked {
				t.Errorf("the controller tracks %d reconciles, want %d", running, wantTracked)
			}
			stop()
			receive(t, reconcileCtx.Done(), "the reconcile's context outlived the manager")
			if err := receive(t, stopped, "the manager did not stop"); err != nil {
				t.Errorf("Start() error = %v", err)
			}
		})
	}
}
