// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespace

import (
	"context"
	"errors"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// stubCluster is a shared cluster with nothing behind it: enough to build virtual clusters that are never used.
type stubCluster struct{ cluster.Cluster }

func (stubCluster) GetScheme() *runtime.Scheme     { return runtime.NewScheme() }
func (stubCluster) GetRESTMapper() meta.RESTMapper { return nil }
func (stubCluster) GetClient() client.Client       { return nil }
func (stubCluster) GetCache() cache.Cache          { return nil }
func (stubCluster) GetAPIReader() client.Reader    { return nil }

// failingAware fails to engage the names it is told to, and records the others.
type failingAware struct {
	mu      sync.Mutex
	fail    map[multicluster.ClusterName]bool
	engaged map[multicluster.ClusterName]context.Context
}

func (a *failingAware) Engage(ctx context.Context, name multicluster.ClusterName, _ cluster.Cluster) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fail[name] {
		return errors.New("refused")
	}
	a.engaged[name] = ctx
	return nil
}

func (a *failingAware) context(name multicluster.ClusterName) context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.engaged[name]
}

func namespaceObject(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// The Namespace handler adds virtual clusters idempotently, removes them on deletes and on tombstones (with or
// without their object), and retries a failed engagement on the next update.
func TestNamespaceHandler(t *testing.T) {
	p := New(stubCluster{})
	aware := &failingAware{fail: map[multicluster.ClusterName]bool{"flaky": true}, engaged: map[multicluster.ClusterName]context.Context{}}
	p.running, p.accepting, p.aware = make(chan struct{}), true, aware
	h := &namespaceHandler{ctx: t.Context(), provider: p}
	defer p.stop()

	for _, name := range []string{"a", "b", "c", "flaky"} {
		h.OnAdd(namespaceObject(name), true)
	}
	h.OnUpdate(namespaceObject("a"), namespaceObject("a"))
	for _, name := range []string{"a", "b", "c"} {
		harness.Eventually(t, wait.ForeverTestTimeout, name+" engaged", func() bool { return aware.context(multicluster.ClusterName(name)) != nil })
	}
	first, err := p.Get(t.Context(), "a")
	if err != nil {
		t.Fatal(err)
	}
	if first.(*NamespacedCluster).Name() != "a" {
		t.Fatalf("Name() = %q", first.(*NamespacedCluster).Name())
	}

	harness.Eventually(t, wait.ForeverTestTimeout, "the failed engagement forgotten", func() bool {
		_, err := p.Get(t.Context(), "flaky")
		return errors.Is(err, multicluster.ErrClusterNotFound)
	})
	aware.mu.Lock()
	aware.fail["flaky"] = false
	aware.mu.Unlock()
	h.OnUpdate(namespaceObject("flaky"), namespaceObject("flaky"))
	harness.Eventually(t, wait.ForeverTestTimeout, "flaky engaged on retry", func() bool { return aware.context("flaky") != nil })

	h.OnDelete(namespaceObject("a"))
	h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "b", Obj: namespaceObject("b")})
	h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "c"})
	for _, name := range []multicluster.ClusterName{"a", "b", "c"} {
		if aware.context(name).Err() == nil {
			t.Fatalf("%s is still engaged after its delete", name)
		}
		if _, err := p.Get(t.Context(), name); !errors.Is(err, multicluster.ErrClusterNotFound) {
			t.Fatalf("Get(%s) after its delete: %v", name, err)
		}
	}
	if again, _ := p.Get(t.Context(), "flaky"); again == nil {
		t.Fatal("flaky is gone")
	}
}
