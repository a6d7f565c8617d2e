// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespace_test

import (
	"context"
	"sync"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// hostClient returns a direct client of the host control plane.
func hostClient(t testing.TB) client.Client {
	t.Helper()
	return harness.Client(t, fleet, mcenvtest.HostName)
}

// startSharedCluster builds the shared cluster of the host and runs it until the test ends, as a provider's
// caller does; the test waits for it to stop.
func startSharedCluster(t testing.TB) cluster.Cluster {
	t.Helper()
	cl := harness.NewCluster(t, fleet, mcenvtest.HostName)
	harness.RunCluster(t, cl)
	return cl
}

// newNamespaceManager returns a manager of the host whose fleet is the host's namespaces (not started), and its
// provider. The caller of the provider starts the shared cluster: here, with the manager.
func newNamespaceManager(t testing.TB) (mcmanager.Manager, *namespace.Provider) {
	t.Helper()
	shared := harness.NewCluster(t, fleet, mcenvtest.HostName)
	p := namespace.New(shared)
	mgr := harness.NewManager(t, fleet.Host(), p, nil)
	if err := mgr.GetLocalManager().Add(shared); err != nil {
		t.Fatal(err)
	}
	return mgr, p
}

// startProvider runs p.Start with aware until the test ends or stop is called; either way the test waits for it
// to return.
func startProvider(t testing.TB, p *namespace.Provider, aware interface {
	Engage(context.Context, multicluster.ClusterName, cluster.Cluster) error
}) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	done := make(chan error, 1)
	go func() { done <- p.Start(ctx, aware) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("provider: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// engageRecorder is a multicluster.Aware that records the clusters engaged with it and their contexts.
type engageRecorder struct {
	mu       sync.Mutex
	engaged  map[string]context.Context
	clusters map[multicluster.ClusterName]cluster.Cluster
	count    map[string]int
}

func newEngageRecorder() *engageRecorder {
	return &engageRecorder{engaged: map[string]context.Context{}, clusters: map[multicluster.ClusterName]cluster.Cluster{}, count: map[string]int{}}
}

func (r *engageRecorder) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.engaged[name.String()] = ctx
	r.clusters[name] = cl
	r.count[name.String()]++
	return nil
}

// isEngaged reports whether name was engaged and its context has not ended.
func (r *engageRecorder) isEngaged(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, ok := r.engaged[name]
	return ok && ctx.Err() == nil
}

// wasDisengaged reports whether name was engaged and its context has ended since.
func (r *engageRecorder) wasDisengaged(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, ok := r.engaged[name]
	return ok && ctx.Err() != nil
}

func (r *engageRecorder) engagements(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count[name]
}

// virtualCluster waits until the provider knows the namespace and returns its virtual cluster.
func virtualCluster(t testing.TB, p *namespace.Provider, name string) *namespace.NamespacedCluster {
	t.Helper()
	var cl cluster.Cluster
	harness.Eventually(t, harness.ShortWait, "virtual cluster "+name, func() bool {
		var err error
		cl, err = p.Get(t.Context(), multicluster.ClusterName(name))
		return err == nil
	})
	nc, ok := cl.(*namespace.NamespacedCluster)
	if !ok {
		t.Fatalf("Get returned %T, want *namespace.NamespacedCluster", cl)
	}
	return nc
}
