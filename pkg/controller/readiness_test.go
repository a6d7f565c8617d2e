// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package controller_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/source"

	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// gatedSource is a multi-cluster source whose per-cluster sources sync only once their cluster's gate is opened.
type gatedSource struct {
	gates map[multicluster.ClusterName]chan struct{}
}

func (s *gatedSource) ForCluster(name multicluster.ClusterName, _ cluster.Cluster) (source.TypedSource[mcreconcile.Request], bool, error) {
	return &gatedClusterSource{gate: s.gates[name]}, true, nil
}

type gatedClusterSource struct{ gate chan struct{} }

func (s *gatedClusterSource) Start(context.Context, workqueue.TypedRateLimitingInterface[mcreconcile.Request]) error {
	return nil
}

func (s *gatedClusterSource) WaitForSync(ctx context.Context) error {
	select {
	case <-s.gate:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// A controller reports the engaged clusters whose sources have not synced, only while it runs (a standby replica
// reports none), and stops reporting a cluster once its sources synced or it was disengaged.
func TestUnsyncedClusters(t *testing.T) {
	c := newController(t, "unsynced", newRecorder())
	src := &gatedSource{gates: map[multicluster.ClusterName]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{})}}
	if err := c.MultiClusterWatch(src); err != nil {
		t.Fatal(err)
	}
	reporter, ok := c.(mcmanager.ClusterSyncReporter)
	if !ok {
		t.Fatalf("%T does not implement mcmanager.ClusterSyncReporter", c)
	}
	engageB, disengageB := context.WithCancel(t.Context())
	defer disengageB()
	for name, ctx := range map[multicluster.ClusterName]context.Context{"a": t.Context(), "b": engageB} {
		if err := c.Engage(ctx, name, &fakeCluster{name: name}); err != nil {
			t.Fatal(err)
		}
	}
	if got := reporter.UnsyncedClusters(); len(got) != 0 {
		t.Errorf("before the controller starts: UnsyncedClusters() = %v, want none", got)
	}

	start(t, c)
	eventually(t, "a and b unsynced", func() bool { return slices.Equal(reporter.UnsyncedClusters(), []multicluster.ClusterName{"a", "b"}) })
	close(src.gates["a"])
	eventually(t, "a synced", func() bool { return slices.Equal(reporter.UnsyncedClusters(), []multicluster.ClusterName{"b"}) })
	disengageB()
	eventually(t, "b disengaged", func() bool { return len(reporter.UnsyncedClusters()) == 0 })
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
		return cond(), nil
	}); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
