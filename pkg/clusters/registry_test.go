// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// registryCluster is a cluster whose config reaches the API server named by its id; its other methods panic.
type registryCluster struct {
	cluster.Cluster
	id string
}

func (c *registryCluster) GetConfig() *rest.Config { return &rest.Config{Host: c.id} }

// foreignCluster is a cluster of another type than the registry's.
type foreignCluster struct{ cluster.Cluster }

func newRegistryCluster(id string) *registryCluster { return &registryCluster{id: id} }

// opaqueContext is a context that context.AfterFunc can only watch with a goroutine of its own: it is neither
// derived from a cancellable context of package context nor has an AfterFunc method.
type opaqueContext struct {
	context.Context
	done chan struct{}
}

func newOpaqueContext() *opaqueContext {
	return &opaqueContext{Context: context.Background(), done: make(chan struct{})}
}

func (c *opaqueContext) Done() <-chan struct{} { return c.done }

func (c *opaqueContext) Err() error {
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}

// waitFor polls cond until it holds, failing the test after a generous deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 5*time.Millisecond, 30*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// names converts strings to cluster names.
func names(ns ...string) []multicluster.ClusterName {
	out := make([]multicluster.ClusterName, 0, len(ns))
	for _, n := range ns {
		out = append(out, multicluster.ClusterName(n))
	}
	return out
}

// The operations of a Registry, step by step; each case checks the names and the instance behind each name at the
// end. An engagement whose context has ended is invisible at once, so every outcome is deterministic; that its
// teardown then forgets it, and never a replacement, is tested in registry_internal_test.go.
func TestRegistryOperations(t *testing.T) {
	a1, a2, b, b2 := newRegistryCluster("a1"), newRegistryCluster("a2"), newRegistryCluster("b"), newRegistryCluster("b")
	tests := []struct {
		name  string
		steps func(t *testing.T, r *clusters.Registry[*registryCluster])
		want  map[multicluster.ClusterName]*registryCluster
	}{{
		name: "engage records the cluster",
		steps: func(t *testing.T, r *clusters.Registry[*registryCluster]) {
			mustEngage(t.Context(), t, r, "a", a1)
			mustEngage(t.Context(), t, r, "b", b)
		},
		want: map[multicluster.ClusterName]*registryCluster{"a": a1, "b": b},
	}, {
		name: "engaging with an ended context records nothing",
		steps: func(t *testing.T, r *clusters.Registry[*registryCluster]) {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			mustEngage(ctx, t, r, "a", a1)
		},
		want: map[multicluster.ClusterName]*registryCluster{},
	}, {
		name: "an engagement whose context ended is gone at once",
		steps: func(t *testing.T, r *clusters.Registry[*registryCluster]) {
			ctx, cancel := context.WithCancel(t.Context())
			mustEngage(ctx, t, r, "a", a1)
			cancel()
		},
		want: map[multicluster.ClusterName]*registryCluster{},
	}, {
		name: "engaging the same instance again keeps the first lifetime",
		steps: func(t *testing.T, r *clusters.Registry[*registryCluster]) {
			second, cancel := context.WithCancel(t.Context())
			mustEngage(t.Context(), t, r, "a", a1)
			mustEngage(second, t, r, "a", a1)
			cancel()
		},
		want: map[multicluster.ClusterName]*registryCluster{"a": a1},
	}, {
		name: "the end of a replaced engagement does not remove the replacement",
		steps: func(t *testing.T, r *clusters.Registry[*registryCluster]) {
			old, cancel := context.WithCancel(t.Context())
			mustEngage(old, t, r, "a", a1)
			mustEngage(t.Context(), t, r, "a", a2)
			cancel()
		},
		want: map[multicluster.ClusterName]*registryCluster{"a": a2},
	}, {
		name: "add and remove",
		steps: func(t *testing.T, r *clusters.Registry[*registryCluster]) {
			mustAdd(t, r, "a", a1)
			mustAdd(t, r, "b", b)
			r.Remove("b")
			r.Remove("b")
			r.Remove("unknown")
		},
		want: map[multicluster.ClusterName]*registryCluster{"a": a1},
	}, {
		name: "add fails for a registered name and changes nothing",
		steps: func(t *testing.T, r *clusters.Registry[*registryCluster]) {
			mustEngage(t.Context(), t, r, "a", a1)
			err := r.Add(t.Context(), "a", a2)
			if err == nil || !strings.Contains(err.Error(), `"a"`) {
				t.Errorf("Add of a registered name: got %v, want an error naming the cluster", err)
			}
		},
		want: map[multicluster.ClusterName]*registryCluster{"a": a1},
	}, {
		name: "add succeeds once an engagement ended",
		steps: func(t *testing.T, r *clusters.Registry[*registryCluster]) {
			ctx, cancel := context.WithCancel(t.Context())
			mustEngage(ctx, t, r, "a", a1)
			cancel()
			mustAdd(t, r, "a", a2)
		},
		want: map[multicluster.ClusterName]*registryCluster{"a": a2},
	}, {
		name: "add or replace replaces an engagement, whose end leaves the replacement",
		steps: func(t *testing.T, r *clusters.Registry[*registryCluster]) {
			old, cancel := context.WithCancel(t.Context())
			mustEngage(old, t, r, "a", a1)
			mustAddOrReplace(t, r, "a", a2)
			cancel()
		},
		want: map[multicluster.ClusterName]*registryCluster{"a": a2},
	}, {
		name: "a cluster added by hand outlives the engagement of the same instance",
		steps: func(t *testing.T, r *clusters.Registry[*registryCluster]) {
			ctx, cancel := context.WithCancel(t.Context())
			mustAdd(t, r, "a", a1)
			mustEngage(ctx, t, r, "a", a1)
			cancel()
		},
		want: map[multicluster.ClusterName]*registryCluster{"a": a1},
	}, {
		name: "remove if equal removes only the same instance",
		steps: func(t *testing.T, r *clusters.Registry[*registryCluster]) {
			mustAdd(t, r, "a", a2)
			mustAdd(t, r, "b", b)
			r.RemoveIfEqual("a", a1)
			r.RemoveIfEqual("b", b)
			r.RemoveIfEqual("unknown", b)
		},
		want: map[multicluster.ClusterName]*registryCluster{"a": a2},
	}, {
		name: "add or replace keeps a registered cluster that is equal, for good",
		steps: func(t *testing.T, r *clusters.Registry[*registryCluster]) {
			engaged, cancel := context.WithCancel(t.Context())
			mustEngage(engaged, t, r, "a", a1)
			mustAddOrReplace(t, r, "a", newRegistryCluster("a1"))
			cancel()
		},
		want: map[multicluster.ClusterName]*registryCluster{"a": a1},
	}, {
		name: "add or replace compares with the registry's EqualClusters",
		steps: func(t *testing.T, r *clusters.Registry[*registryCluster]) {
			r.EqualClusters = func(a, b *registryCluster) bool { return true }
			mustAdd(t, r, "a", a1)
			mustAddOrReplace(t, r, "a", a2)
			r.EqualClusters = func(a, b *registryCluster) bool { return false }
			mustAdd(t, r, "b", b)
			mustAddOrReplace(t, r, "b", b2)
		},
		want: map[multicluster.ClusterName]*registryCluster{"a": a1, "b": b2},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := clusters.NewRegistry[*registryCluster]()
			tt.steps(t, r)

			wantNames := make([]multicluster.ClusterName, 0, len(tt.want))
			for name := range tt.want {
				wantNames = append(wantNames, name)
			}
			slices.Sort(wantNames)
			if got := r.ClusterNames(); !slices.Equal(got, wantNames) {
				t.Fatalf("ClusterNames() = %v, want %v", got, wantNames)
			}
			if got := r.Len(); got != len(wantNames) {
				t.Errorf("Len() = %d, want %d", got, len(wantNames))
			}
			for name, want := range tt.want {
				got, err := r.GetTyped(t.Context(), name)
				if err != nil || got != want {
					t.Errorf("GetTyped(%q) = %v, %v; want %s", name, got, err, want.id)
				}
				untyped, err := r.Get(t.Context(), name)
				if err != nil || untyped != cluster.Cluster(want) {
					t.Errorf("Get(%q) = %v, %v; want %s", name, untyped, err, want.id)
				}
			}
		})
	}
}

func mustEngage(ctx context.Context, t *testing.T, r *clusters.Registry[*registryCluster], name multicluster.ClusterName, cl cluster.Cluster) {
	t.Helper()
	if err := r.Engage(ctx, name, cl); err != nil {
		t.Fatalf("Engage(%q): %v", name, err)
	}
}

func mustAdd(t *testing.T, r *clusters.Registry[*registryCluster], name multicluster.ClusterName, cl *registryCluster) {
	t.Helper()
	if err := r.Add(t.Context(), name, cl); err != nil {
		t.Fatalf("Add(%q): %v", name, err)
	}
}

func mustAddOrReplace(t *testing.T, r *clusters.Registry[*registryCluster], name multicluster.ClusterName, cl *registryCluster) {
	t.Helper()
	if err := r.AddOrReplace(t.Context(), name, cl); err != nil {
		t.Fatalf("AddOrReplace(%q): %v", name, err)
	}
}

func TestRegistryGetUnknown(t *testing.T) {
	r := clusters.NewRegistry[*registryCluster]()
	cl, err := r.Get(t.Context(), "missing")
	if !errors.Is(err, multicluster.ErrClusterNotFound) || !strings.Contains(err.Error(), `"missing"`) {
		t.Errorf("Get: got %v, want ErrClusterNotFound naming the cluster", err)
	}
	if cl != nil {
		t.Errorf("Get returned a non-nil cluster %#v", cl)
	}
	typed, err := r.GetTyped(t.Context(), "missing")
	if !errors.Is(err, multicluster.ErrClusterNotFound) || typed != nil {
		t.Errorf("GetTyped: got %v, %v; want nil, ErrClusterNotFound", typed, err)
	}
}

func TestRegistryEngageRejects(t *testing.T) {
	tests := []struct {
		name    string
		cluster cluster.Cluster
		want    string
	}{
		{name: "nil cluster", cluster: nil, want: "nil"},
		{name: "cluster of another type", cluster: &foreignCluster{}, want: "foreignCluster"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := clusters.NewRegistry[*registryCluster]()
			err := r.Engage(t.Context(), "x", tt.cluster)
			if err == nil || !strings.Contains(err.Error(), `"x"`) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Engage: got %v, want an error naming the cluster and mentioning %q", err, tt.want)
			}
			if names := r.ClusterNames(); len(names) != 0 {
				t.Errorf("a rejected cluster was registered: %v", names)
			}
		})
	}
}

// A registry of cluster.Cluster takes any cluster, and the zero value is usable.
func TestRegistryUntypedZeroValue(t *testing.T) {
	var r clusters.Registry[cluster.Cluster]
	if err := r.Engage(t.Context(), "x", &foreignCluster{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(t.Context(), "y", &registryCluster{}); err != nil {
		t.Fatal(err)
	}
	if got, want := r.ClusterNames(), names("x", "y"); !slices.Equal(got, want) {
		t.Errorf("ClusterNames() = %v, want %v", got, want)
	}
}

func TestRegistryForEach(t *testing.T) {
	r := clusters.NewRegistry[*registryCluster]()
	for _, name := range []string{"c", "a", "d", "b"} {
		mustAdd(t, r, multicluster.ClusterName(name), newRegistryCluster(name))
	}
	errStop := errors.New("stop")
	tests := []struct {
		name      string
		stopAfter int
		want      []string
		wantErr   error
	}{
		{name: "all, sorted by name", stopAfter: -1, want: []string{"a", "b", "c", "d"}},
		{name: "stops at the first error and returns it", stopAfter: 2, want: []string{"a", "b"}, wantErr: errStop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []string
			err := r.ForEach(func(name multicluster.ClusterName, cl *registryCluster) error {
				if name.String() != cl.id {
					t.Errorf("ForEach passed %q with cluster %q", name, cl.id)
				}
				seen = append(seen, name.String())
				if len(seen) == tt.stopAfter {
					return fmt.Errorf("at %s: %w", name, errStop)
				}
				return nil
			})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("ForEach returned %v, want %v", err, tt.wantErr)
			}
			if !slices.Equal(seen, tt.want) {
				t.Errorf("ForEach visited %v, want %v", seen, tt.want)
			}
		})
	}

	// fn may change the registry: ForEach works on a snapshot and holds no lock while fn runs.
	var seen []string
	err := r.ForEach(func(name multicluster.ClusterName, _ *registryCluster) error {
		seen = append(seen, name.String())
		r.Remove(name)
		return r.AddOrReplace(t.Context(), "z", newRegistryCluster("z"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "c", "d"}; !slices.Equal(seen, want) {
		t.Errorf("ForEach visited %v while removing, want %v", seen, want)
	}
	if got, want := r.ClusterNames(), names("z"); !slices.Equal(got, want) {
		t.Errorf("ClusterNames() = %v, want %v", got, want)
	}
}

// A Registry is a cluster-aware runnable: mgr.Add takes it, and Start blocks until its context ends.
func TestRegistryIsARunnable(t *testing.T) {
	var r mcmanager.Runnable = clusters.NewRegistry[cluster.Cluster]()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Start(ctx) }()
	select {
	case err := <-done:
		t.Fatalf("Start returned %v before its context ended", err)
	default:
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Start returned %v, want nil", err)
	}
}

// Engage's watcher of a cluster's context ends with the context, and Remove, RemoveIfEqual and replacements
// release it before then: neither leaves a goroutine behind, even for a context that context.AfterFunc can only
// watch with a goroutine.
func TestRegistryWatchersEnd(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	r := clusters.NewRegistry[*registryCluster]()

	ctx, cancel := context.WithCancel(t.Context())
	opaque := []*opaqueContext{newOpaqueContext(), newOpaqueContext(), newOpaqueContext(), newOpaqueContext()}
	for i := range 10 {
		mustEngage(ctx, t, r, multicluster.ClusterName(fmt.Sprintf("std-%d", i)), newRegistryCluster("std"))
	}
	for i, o := range opaque {
		mustEngage(o, t, r, multicluster.ClusterName(fmt.Sprintf("opaque-%d", i)), newRegistryCluster("opaque"))
	}

	// Released by Remove, RemoveIfEqual, AddOrReplace and a replacing Engage, without their contexts ending.
	r.Remove("opaque-0")
	r.RemoveIfEqual("opaque-1", mustGet(t, r, "opaque-1"))
	mustAddOrReplace(t, r, "opaque-2", newRegistryCluster("by hand"))
	mustEngage(t.Context(), t, r, "opaque-3", newRegistryCluster("replacement"))

	// Ended with their context.
	cancel()
	waitFor(t, "the engaged clusters to be forgotten", func() bool {
		return slices.Equal(r.ClusterNames(), names("opaque-2", "opaque-3"))
	})
	goleak.VerifyNone(t, ignore)
}

func mustGet(t *testing.T, r *clusters.Registry[*registryCluster], name multicluster.ClusterName) *registryCluster {
	t.Helper()
	cl, err := r.GetTyped(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// Concurrent engagements, replacements, removals and reads, for the race detector; at the end every cluster whose
// context lives is registered and no other.
func TestRegistryConcurrentUse(t *testing.T) {
	r := clusters.NewRegistry[*registryCluster]()
	const workers, rounds = 8, 200
	var wg sync.WaitGroup
	kept := make([]*registryCluster, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := multicluster.ClusterName(fmt.Sprintf("c-%d", w%4))
			own := multicluster.ClusterName(fmt.Sprintf("own-%d", w))
			for i := range rounds {
				ctx, cancel := context.WithCancel(t.Context())
				cl := newRegistryCluster(fmt.Sprintf("%d-%d", w, i))
				_ = r.Engage(ctx, name, cl)
				_ = r.Engage(ctx, own, cl)
				_, _ = r.Get(ctx, name)
				_ = r.ClusterNames()
				_ = r.ForEach(func(multicluster.ClusterName, *registryCluster) error { return nil })
				switch i % 3 {
				case 0:
					cancel()
				case 1:
					r.RemoveIfEqual(name, cl)
					cancel()
				default:
					_ = r.AddOrReplace(ctx, name, cl)
					cancel()
				}
			}
			last := newRegistryCluster(fmt.Sprintf("last-%d", w))
			kept[w] = last
			_ = r.Engage(t.Context(), own, last)
		}()
	}
	wg.Wait()
	// The last engagements live as long as the test: whatever teardowns of earlier engagements still run, they
	// never remove them.
	for w, want := range kept {
		name := multicluster.ClusterName(fmt.Sprintf("own-%d", w))
		if got, err := r.GetTyped(t.Context(), name); err != nil || got != want {
			t.Errorf("GetTyped(%q) = %v, %v; want its last cluster", name, got, err)
		}
	}
}
