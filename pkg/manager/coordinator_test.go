// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package manager_test

import (
	"context"
	"sync"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// recordingCoordinator records what the manager hands it and engages nothing.
type recordingCoordinator struct {
	mu       sync.Mutex
	awares   []multicluster.Aware
	clusters []multicluster.ClusterName
	gated    []multicluster.ClusterName
	runnable manager.Runnable
}

func (c *recordingCoordinator) AddAware(a multicluster.Aware) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.awares = append(c.awares, a)
}

func (c *recordingCoordinator) Engage(_ context.Context, name multicluster.ClusterName, _ cluster.Cluster) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clusters = append(c.clusters, name)
	return nil
}

func (c *recordingCoordinator) Runnable() manager.Runnable { return c.runnable }

func (c *recordingCoordinator) StartClusterWork(ctx context.Context, name multicluster.ClusterName) (context.Context, func(), bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gated = append(c.gated, name)
	return ctx, func() {}, name == "mine"
}

type runnableFunc func(context.Context) error

func (f runnableFunc) Start(ctx context.Context) error { return f(ctx) }

// The manager registers every cluster-aware runnable with its coordinator, forwards every engagement to it, runs
// its runnable, and lets it gate the work on fleet clusters; the coordinator alone decides what is engaged.
func TestManagerDelegatesToItsCoordinator(t *testing.T) {
	started := make(chan struct{})
	coord := &recordingCoordinator{runnable: runnableFunc(func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		return nil
	})}
	m, err := mcmanager.WithMultiCluster(newHostManager(t), nil, mcmanager.WithCoordinator(coord))
	if err != nil {
		t.Fatal(err)
	}
	r := addRunnable(t, m)
	a := &fakeCluster{name: "a"}
	if err := m.Engage(t.Context(), "a", a); err != nil {
		t.Fatal(err)
	}
	if err := m.Engage(t.Context(), "a", a); err != nil { // the same instance again: not forwarded twice
		t.Fatal(err)
	}

	coord.mu.Lock()
	if len(coord.awares) != 1 || coord.awares[0] != r {
		t.Errorf("coordinator got awares %v, want the runnable added", coord.awares)
	}
	if len(coord.clusters) != 1 || coord.clusters[0] != "a" {
		t.Errorf("coordinator got clusters %q, want a once", coord.clusters)
	}
	coord.mu.Unlock()
	if len(r.engagements()) != 0 {
		t.Error("the manager engaged a runnable behind its coordinator's back")
	}
	// GetCluster still answers engaged clusters, whoever the coordinator engages them with.
	expectCluster(t, m, "a", a, "the engaged cluster")

	gate, ok := m.(mcmanager.ClusterWorkGate)
	if !ok {
		t.Fatal("the manager is not a ClusterWorkGate")
	}
	if _, _, ok := gate.StartClusterWork(t.Context(), "mine"); !ok {
		t.Error("work on mine refused, the coordinator allows it")
	}
	if _, _, ok := gate.StartClusterWork(t.Context(), "theirs"); ok {
		t.Error("work on theirs allowed, the coordinator refuses it")
	}
	if _, _, ok := gate.StartClusterWork(t.Context(), mcmanager.LocalCluster); !ok {
		t.Error("work on the host refused: the host is never the coordinator's to fence")
	}

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("manager stopped before the coordinator's runnable started: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("manager returned: %v", err)
	}
}

// Without WithCoordinator, work on every cluster may start (the default coordinator fences nothing).
func TestDefaultCoordinatorGatesNothing(t *testing.T) {
	m := newManager(t, nil)
	gate := m.(mcmanager.ClusterWorkGate)
	ctx, done, ok := gate.StartClusterWork(t.Context(), "any")
	if !ok || ctx != t.Context() {
		t.Error("the default coordinator refused work or changed its context")
	}
	done()
}
