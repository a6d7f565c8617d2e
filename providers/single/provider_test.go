// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package single_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/single"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fakeCluster is a harness.IdleCluster whose field indexer records the fields it indexes.
type fakeCluster struct {
	harness.IdleCluster
	indexed []string
	err     error
}

func (c *fakeCluster) GetFieldIndexer() client.FieldIndexer { return c }

// aware records engagements and fails them with err.
type aware struct {
	engaged chan engagement
	err     error
}

type engagement struct {
	ctx     context.Context
	name    multicluster.ClusterName
	cluster cluster.Cluster
}

func (a aware) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	a.engaged <- engagement{ctx, name, cl}
	return a.err
}

func (c *fakeCluster) IndexField(_ context.Context, _ client.Object, field string, _ client.IndexerFunc) error {
	c.indexed = append(c.indexed, field)
	return c.err
}

func TestGet(t *testing.T) {
	cl := &fakeCluster{}
	p := single.New("workload", cl)

	got, err := p.Get(t.Context(), "workload")
	if err != nil || got != cl {
		t.Errorf("Get(workload) before Start = (%v, %v), want the cluster", got, err)
	}

	harness.ExpectNotFound(t, p, "other", "")
}

func TestIndexField(t *testing.T) {
	cl := &fakeCluster{}
	if err := single.New("workload", cl).IndexField(t.Context(), nil, "spec.field", nil); err != nil {
		t.Fatalf("IndexField() error = %v", err)
	}
	if len(cl.indexed) != 1 || cl.indexed[0] != "spec.field" {
		t.Errorf("cluster indexed %q, want spec.field", cl.indexed)
	}

	broken := &fakeCluster{err: errors.New("boom")}
	err := single.New("workload", broken).IndexField(t.Context(), nil, "spec.field", nil)
	if err == nil || !strings.Contains(err.Error(), `"workload"`) || !strings.Contains(err.Error(), "boom") {
		t.Errorf("IndexField() error = %v, want one naming the cluster and the cause", err)
	}
}

func TestStart(t *testing.T) {
	cl := &fakeCluster{}
	p := single.New("workload", cl)
	a := aware{engaged: make(chan engagement, 1)}

	if names := p.ClusterNames(); len(names) != 0 {
		t.Errorf("ClusterNames() before Start = %v", names)
	}
	stop := harness.StartProvider(t, p, a)

	var e engagement
	select {
	case e = <-a.engaged:
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("the cluster was never engaged")
	}
	if e.name != "workload" || e.cluster != cl {
		t.Errorf("engaged %q with %v, want workload with the cluster", e.name, e.cluster)
	}
	if e.ctx.Err() != nil {
		t.Error("the engagement context ended while the provider runs")
	}
	if names := p.ClusterNames(); !slices.Equal(names, []multicluster.ClusterName{"workload"}) {
		t.Errorf("ClusterNames() while engaged = %v, want [workload]", names)
	}

	stop() // fails the test unless Start returns nil
	if e.ctx.Err() == nil {
		t.Error("the engagement context outlived the provider")
	}
	if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
		return len(p.ClusterNames()) == 0, nil
	}); err != nil {
		t.Errorf("ClusterNames() after Start returned = %v", p.ClusterNames())
	}
}

func TestStartEngageFailure(t *testing.T) {
	p := single.New("workload", &fakeCluster{})
	a := aware{engaged: make(chan engagement, 1), err: errors.New("boom")}

	err := p.Start(t.Context(), a)
	if err == nil || !strings.Contains(err.Error(), `"workload"`) || !strings.Contains(err.Error(), "boom") {
		t.Errorf("Start() error = %v, want one naming the cluster and the cause", err)
	}
}
