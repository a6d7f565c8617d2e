// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package controller_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// gateCoordinator engages nothing and lets work start only for the clusters in allowed; it counts the work in flight.
type gateCoordinator struct {
	mu       sync.Mutex
	allowed  map[multicluster.ClusterName]bool
	inFlight int
	asked    []multicluster.ClusterName
	stop     context.CancelFunc
}

func (g *gateCoordinator) AddAware(multicluster.Aware) {}
func (g *gateCoordinator) Engage(context.Context, multicluster.ClusterName, cluster.Cluster) error {
	return nil
}
func (g *gateCoordinator) Runnable() manager.Runnable { return nil }

func (g *gateCoordinator) StartClusterWork(ctx context.Context, name multicluster.ClusterName) (context.Context, func(), bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.asked = append(g.asked, name)
	if !g.allowed[name] {
		return ctx, nil, false
	}
	g.inFlight++
	ctx, cancel := context.WithCancel(ctx)
	g.stop = cancel
	return ctx, func() {
		cancel()
		g.mu.Lock()
		defer g.mu.Unlock()
		g.inFlight--
	}, true
}

func (g *gateCoordinator) state() (int, []multicluster.ClusterName) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inFlight, append([]multicluster.ClusterName(nil), g.asked...)
}

// A coordinator that fences clusters sees every reconcile of a fleet cluster: refused requests are dropped, allowed
// ones run with its context and are reported done when they return; requests of the host do not ask it.
func TestReconcilePassesTheCoordinatorsGate(t *testing.T) {
	gate := &gateCoordinator{allowed: map[multicluster.ClusterName]bool{"mine": true}}
	host, err := manager.New(&rest.Config{Host: "http://127.0.0.1:1"}, manager.Options{
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := mcmanager.WithMultiCluster(host, nil, mcmanager.WithCoordinator(gate))
	if err != nil {
		t.Fatal(err)
	}

	running := make(chan context.Context, 1)
	release := make(chan struct{})
	var calls []multicluster.ClusterName
	var mu sync.Mutex
	c, err := mccontroller.NewUnmanaged("gated", mgr, mccontroller.Options{
		Reconciler: mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			mu.Lock()
			calls = append(calls, req.ClusterName)
			mu.Unlock()
			if req.ClusterName == "mine" {
				running <- ctx
				<-release
			}
			return reconcile.Result{}, nil
		}),
	})
	if err != nil {
		t.Fatal(err)
	}

	// Both clusters are known to the manager (the provider engaged them); the coordinator engaged neither.
	for _, name := range []multicluster.ClusterName{"mine", "theirs"} {
		if err := mgr.Engage(t.Context(), name, &fakeCluster{name: name}); err != nil {
			t.Fatal(err)
		}
	}

	if _, err := c.Reconcile(t.Context(), request("theirs", "obj")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Reconcile(t.Context(), request("", "obj")); err != nil {
		t.Fatal(err)
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = c.Reconcile(t.Context(), request("mine", "obj"))
	}()
	var ctx context.Context
	select {
	case ctx = <-running:
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("the reconcile of mine did not start")
	}
	if inFlight, _ := gate.state(); inFlight != 1 {
		t.Errorf("work in flight while the reconcile runs = %d, want 1", inFlight)
	}
	// The coordinator's context reaches the reconciler: stopping the work cancels it.
	gate.mu.Lock()
	gate.stop()
	gate.mu.Unlock()
	if err := wait.PollUntilContextTimeout(t.Context(), 0, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
		return ctx.Err() != nil, nil
	}); err != nil {
		t.Error("the reconcile context did not end when the coordinator stopped the work")
	}
	close(release)
	<-done

	inFlight, asked := gate.state()
	if inFlight != 0 {
		t.Errorf("work in flight after the reconcile returned = %d, want 0", inFlight)
	}
	if len(asked) != 2 || asked[0] != "theirs" || asked[1] != "mine" {
		t.Errorf("the gate was asked for %q, want theirs then mine (never the host)", asked)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 2 || calls[0] != "" || calls[1] != "mine" {
		t.Errorf("the reconciler ran for %q, want the host and mine only", calls)
	}
}

// engagementGate is the gate a fencing coordinator attaches to its engagement of one cluster.
type engagementGate struct {
	of   *gateCoordinator
	name multicluster.ClusterName
}

func (g engagementGate) StartWork(ctx context.Context) (context.Context, func(), bool) {
	return g.of.StartClusterWork(ctx, g.name)
}

// The gate a coordinator attaches to an engagement travels with it: every reconcile of the engaged cluster passes
// that gate, although the manager's coordinator (the default) fences nothing. Refused requests are dropped;
// allowed ones run and are reported done when they return.
func TestReconcilePassesTheEngagementsGate(t *testing.T) {
	gate := &gateCoordinator{allowed: map[multicluster.ClusterName]bool{"mine": true}}
	r := newRecorder()
	c := newController(t, "engagement-gated", r)
	for _, name := range []multicluster.ClusterName{"mine", "theirs"} {
		ctx := clusters.WithWorkGate(t.Context(), engagementGate{of: gate, name: name})
		if err := c.Engage(ctx, name, &fakeCluster{name: name}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Engage(t.Context(), "open", &fakeCluster{name: "open"}); err != nil {
		t.Fatal(err)
	}

	for _, name := range []multicluster.ClusterName{"theirs", "mine", "open"} {
		if _, err := c.Reconcile(t.Context(), request(name, "obj")); err != nil {
			t.Fatalf("Reconcile(%s) error = %v", name, err)
		}
	}
	if got := r.next(t); got.req.ClusterName != "mine" {
		t.Errorf("reconciled %v first, want the request of mine (theirs is refused by its gate)", got.req)
	}
	if got := r.next(t); got.req.ClusterName != "open" {
		t.Errorf("reconciled %v, want the request of the cluster engaged without a gate", got.req)
	}
	r.none(t)
	inFlight, asked := gate.state()
	if inFlight != 0 {
		t.Errorf("work in flight after the reconciles returned = %d, want 0", inFlight)
	}
	if len(asked) != 2 || asked[0] != "theirs" || asked[1] != "mine" {
		t.Errorf("the gate was asked for %q, want theirs then mine (never the cluster engaged without it)", asked)
	}
}
