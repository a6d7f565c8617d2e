// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package nop_test

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/nop"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

func TestGet(t *testing.T) {
	harness.ExpectNotFound(t, nop.New(), "a", "", "cluster-1")
}

func TestIndexField(t *testing.T) {
	if err := nop.New().IndexField(t.Context(), nil, "spec.field", func(client.Object) []string { return nil }); err != nil {
		t.Errorf("IndexField() error = %v", err)
	}
}

func TestClusterNames(t *testing.T) {
	if names := nop.New().ClusterNames(); len(names) != 0 {
		t.Errorf("ClusterNames() = %v, want none", names)
	}
}

func TestHostOnly(t *testing.T) {
	if !nop.New().HostOnly() {
		t.Error("HostOnly() = false")
	}
	if !multicluster.IsHostOnly(nop.New()) {
		t.Error("IsHostOnly(nop) = false")
	}
	if !multicluster.IsHostOnly(nil) {
		t.Error("IsHostOnly(nil) = false")
	}
	if multicluster.IsHostOnly(otherProvider{}) {
		t.Error("IsHostOnly(other provider) = true")
	}
}

// otherProvider is a provider that does not declare itself host-only.
type otherProvider struct{ multicluster.Provider }

// recordingAware reports every engagement on its channel.
type recordingAware struct{ engaged chan string }

func (a recordingAware) Engage(_ context.Context, name multicluster.ClusterName, _ cluster.Cluster) error {
	a.engaged <- name.String()
	return nil
}

func TestStartReturnsWhenContextEnds(t *testing.T) {
	aware := recordingAware{engaged: make(chan string, 1)}
	stop, done := harness.GoWatched(t, func(ctx context.Context) error { return nop.New().Start(ctx, aware) })
	select {
	case <-done:
		t.Fatal("Start() returned before its context ended")
	default:
	}
	stop() // fails the test unless Start returns nil
	select {
	case name := <-aware.engaged:
		t.Errorf("nop provider engaged cluster %q", name)
	default:
	}
}
