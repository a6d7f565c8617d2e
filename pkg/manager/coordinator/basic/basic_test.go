// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package basic_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/basic"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

type fakeCluster struct {
	cluster.Cluster
	name string
}

type engagement struct {
	ctx  context.Context
	name multicluster.ClusterName
	cl   cluster.Cluster
}

type aware struct {
	mu      sync.Mutex
	engaged []engagement
	err     error
}

func (a *aware) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.engaged = append(a.engaged, engagement{ctx, name, cl})
	return a.err
}

func (a *aware) names() []multicluster.ClusterName {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]multicluster.ClusterName, 0, len(a.engaged))
	for _, e := range a.engaged {
		out = append(out, e.name)
	}
	return out
}

func TestEngagesEveryAwareWithEveryCluster(t *testing.T) {
	c := basic.New()
	if c.Runnable() != nil {
		t.Error("the basic coordinator has a runnable")
	}
	early := &aware{}
	c.AddAware(early)

	a := &fakeCluster{name: "a"}
	ctxA := t.Context()
	if err := c.Engage(ctxA, "a", a); err != nil {
		t.Fatal(err)
	}
	if err := c.Engage(ctxA, "a", a); err != nil { // the same instance again: a no-op
		t.Fatal(err)
	}
	gone, cancel := context.WithCancel(t.Context())
	if err := c.Engage(gone, "gone", &fakeCluster{name: "gone"}); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := c.Engage(gone, "late", &fakeCluster{name: "late"}); err != nil { // an ended context: ignored
		t.Fatal(err)
	}

	late := &aware{}
	if err := c.RegisterAware(late); err != nil {
		t.Fatal(err)
	}
	if got := early.names(); len(got) != 2 || got[0] != "a" || got[1] != "gone" {
		t.Errorf("early Aware engaged with %q, want a and gone once each", got)
	}
	if got := late.names(); len(got) != 1 || got[0] != "a" {
		t.Errorf("late Aware engaged with %q, want the live cluster a", got)
	}
	if late.engaged[0].ctx != ctxA || late.engaged[0].cl != a {
		t.Error("the replayed engagement does not carry the cluster's own context and instance")
	}

	// Another instance under the same name replaces the first.
	a2 := &fakeCluster{name: "a"}
	if err := c.Engage(ctxA, "a", a2); err != nil {
		t.Fatal(err)
	}
	if got := late.names(); len(got) != 2 || late.engaged[1].cl != a2 {
		t.Errorf("late Aware engaged with %q, want a replaced by its new instance", got)
	}
}

func TestErrorsNameTheCluster(t *testing.T) {
	c := basic.New()
	failing, ok := &aware{err: errors.New("boom")}, &aware{}
	c.AddAware(failing)
	c.AddAware(ok)
	err := c.Engage(t.Context(), "a", &fakeCluster{name: "a"})
	if err == nil || !strings.Contains(err.Error(), `"a"`) || !strings.Contains(err.Error(), "boom") {
		t.Errorf("Engage() error = %v, want one naming the cluster and the cause", err)
	}
	if len(ok.names()) != 1 {
		t.Error("the healthy Aware was not engaged because another failed")
	}
	if err := c.RegisterAware(&aware{err: errors.New("late boom")}); err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("RegisterAware() error = %v, want the replay error naming the cluster", err)
	}
}
