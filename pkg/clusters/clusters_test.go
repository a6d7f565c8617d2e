// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// fakeCluster is a cluster.Cluster whose cache syncs at once and whose field indexer records what it indexes.
// Its Start blocks until its context ends. Other methods panic.
type fakeCluster struct {
	cluster.Cluster
	host string

	mu      sync.Mutex
	indexed []string
}

func (c *fakeCluster) GetConfig() *rest.Config              { return &rest.Config{Host: c.host} }
func (c *fakeCluster) GetCache() cache.Cache                { return syncedCache{} }
func (c *fakeCluster) GetFieldIndexer() client.FieldIndexer { return c }

func (c *fakeCluster) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (c *fakeCluster) IndexField(_ context.Context, _ client.Object, field string, _ client.IndexerFunc) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.indexed = append(c.indexed, field)
	return nil
}

func (c *fakeCluster) indexedFields() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.indexed)
}

// syncedCache is a cache that has always synced.
type syncedCache struct{ cache.Cache }

func (syncedCache) WaitForCacheSync(context.Context) bool { return true }

// nopAware accepts every engagement.
type nopAware struct{}

func (nopAware) Engage(context.Context, multicluster.ClusterName, cluster.Cluster) error { return nil }

func TestGetUnknown(t *testing.T) {
	cs := clusters.New[*fakeCluster]()

	_, err := cs.Get(t.Context(), "missing")
	if !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Errorf("Get(missing) error = %v, want ErrClusterNotFound", err)
	}
	if err != nil && !strings.Contains(err.Error(), `"missing"`) {
		t.Errorf("Get(missing) error %q does not name the cluster", err)
	}

	cl, err := cs.GetTyped(t.Context(), "missing")
	if !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Errorf("GetTyped(missing) error = %v, want ErrClusterNotFound", err)
	}
	if err != nil && !strings.Contains(err.Error(), `"missing"`) {
		t.Errorf("GetTyped(missing) error %q does not name the cluster", err)
	}
	if cl != nil {
		t.Errorf("GetTyped(missing) = %v, want the zero value", cl)
	}
}

func TestGetIsNotATypedNil(t *testing.T) {
	// Get returns an interface: for an unknown name it must be a true nil, not a nil *fakeCluster.
	cs := clusters.New[*fakeCluster]()
	if cl, _ := cs.Get(t.Context(), "missing"); cl != nil {
		t.Errorf("Get(missing) = %#v, want nil", cl)
	}
}

func TestClusterNamesAndGet(t *testing.T) {
	cs := clusters.New[*fakeCluster]()
	if names := cs.ClusterNames(); len(names) != 0 {
		t.Errorf("ClusterNames() of a new set = %q, want none", names)
	}

	added := map[multicluster.ClusterName]*fakeCluster{}
	for _, name := range []multicluster.ClusterName{"zeta", "alpha", "mu", "beta"} {
		cl := &fakeCluster{host: name.String()}
		if err := cs.Add(t.Context(), name, cl, nopAware{}); err != nil {
			t.Fatalf("Add(%q) error = %v", name, err)
		}
		added[name] = cl
	}

	if got, want := cs.ClusterNames(), []multicluster.ClusterName{"alpha", "beta", "mu", "zeta"}; !slices.Equal(got, want) {
		t.Errorf("ClusterNames() = %q, want %q", got, want)
	}
	for name, want := range added {
		if got, err := cs.GetTyped(t.Context(), name); err != nil || got != want {
			t.Errorf("GetTyped(%q) = (%v, %v), want the added cluster", name, got, err)
		}
		if got, err := cs.Get(t.Context(), name); err != nil || got != want {
			t.Errorf("Get(%q) = (%v, %v), want the added cluster", name, got, err)
		}
	}

	cs.Remove("mu")
	cs.Remove("never-added")
	if got, want := cs.ClusterNames(), []multicluster.ClusterName{"alpha", "beta", "zeta"}; !slices.Equal(got, want) {
		t.Errorf("ClusterNames() after Remove = %q, want %q", got, want)
	}
	if _, err := cs.Get(t.Context(), "mu"); !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Errorf("Get(mu) after Remove error = %v, want ErrClusterNotFound", err)
	}
}

func TestIndexersRecorded(t *testing.T) {
	cs := clusters.New[*fakeCluster]()
	if got := cs.Indexers(); len(got) != 0 {
		t.Errorf("Indexers() of a new set = %v, want none", got)
	}

	present := &fakeCluster{host: "present"}
	if err := cs.Add(t.Context(), "present", present, nopAware{}); err != nil {
		t.Fatal(err)
	}

	extract := func(client.Object) []string { return nil }
	if err := cs.IndexField(t.Context(), nil, "spec.a", extract); err != nil {
		t.Fatalf("IndexField() error = %v", err)
	}
	if err := cs.IndexField(t.Context(), nil, "spec.b", extract); err != nil {
		t.Fatalf("IndexField() error = %v", err)
	}

	got := cs.Indexers()
	if len(got) != 2 || got[0].Field != "spec.a" || got[1].Field != "spec.b" || got[0].Extractor == nil {
		t.Errorf("Indexers() = %+v, want spec.a and spec.b in order", got)
	}
	// The returned slice is a copy.
	got[0].Field = "changed"
	if cs.Indexers()[0].Field != "spec.a" {
		t.Error("Indexers() returned the set's own slice")
	}

	if fields := present.indexedFields(); !slices.Equal(fields, []string{"spec.a", "spec.b"}) {
		t.Errorf("present cluster indexed %q, want spec.a and spec.b", fields)
	}
	later := &fakeCluster{host: "later"}
	if err := cs.Add(t.Context(), "later", later, nopAware{}); err != nil {
		t.Fatal(err)
	}
	if fields := later.indexedFields(); !slices.Equal(fields, []string{"spec.a", "spec.b"}) {
		t.Errorf("cluster added later indexed %q, want spec.a and spec.b", fields)
	}
}

func TestEqualClusters(t *testing.T) {
	a1, a2, b := &fakeCluster{host: "https://a"}, &fakeCluster{host: "https://a"}, &fakeCluster{host: "https://b"}
	if !clusters.EqualClusters(a1, a2) {
		t.Error("clusters with equal configs are not equal")
	}
	if clusters.EqualClusters(a1, b) {
		t.Error("clusters with different hosts are equal")
	}
}
