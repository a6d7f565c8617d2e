// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package source_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	mcsource "sigs.k8s.io/multicluster-runtime/pkg/source"
)

// fakeCluster is a cluster without a cache; the sources built for it can be inspected but not started.
type fakeCluster struct{ cluster.Cluster }

func (fakeCluster) GetCache() cache.Cache { return nil }

// handlerBuilds records the clusters a source builds its event handler for.
type handlerBuilds struct {
	mu    sync.Mutex
	names []multicluster.ClusterName
}

func (h *handlerBuilds) handler() mchandler.TypedEventHandlerFunc[*corev1.ConfigMap, mcreconcile.Request] {
	return func(name multicluster.ClusterName, _ cluster.Cluster) handler.TypedEventHandler[*corev1.ConfigMap, mcreconcile.Request] {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.names = append(h.names, name)
		return mchandler.TypedEnqueueRequestForObject[*corev1.ConfigMap]()(name, nil)
	}
}

func (h *handlerBuilds) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.names)
}

func only(names ...multicluster.ClusterName) mcsource.ClusterFilterFunc {
	return func(name multicluster.ClusterName, _ cluster.Cluster) bool {
		for _, n := range names {
			if n == name {
				return true
			}
		}
		return false
	}
}

// watched returns, for each name, whether the source's ForCluster reports that it watches the cluster, and fails
// the test if ForCluster returns an error or no source.
func watched(t *testing.T, src mcsource.SyncingSource[*corev1.ConfigMap], names ...multicluster.ClusterName) map[multicluster.ClusterName]bool {
	t.Helper()
	got := map[multicluster.ClusterName]bool{}
	for _, name := range names {
		s, ok, err := src.ForCluster(name, fakeCluster{})
		if err != nil {
			t.Fatalf("ForCluster(%q) error = %v", name, err)
		}
		if s == nil {
			t.Fatalf("ForCluster(%q) returned no source (watched: %v)", name, ok)
		}
		got[name] = ok
	}
	return got
}

func equal(a, b map[multicluster.ClusterName]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// WithClusterFilter changes the source it is called on and returns it, as the reference implementation's does:
// code that ignores the result gets the filter; a later filter replaces an earlier one; nil removes it. ForCluster
// returns a source for every cluster, with false for those the filter rejects.
func TestWithClusterFilterChangesTheSource(t *testing.T) {
	var builds handlerBuilds
	src := mcsource.Kind(&corev1.ConfigMap{}, builds.handler())

	steps := []struct {
		name   string
		filter mcsource.ClusterFilterFunc
		want   map[multicluster.ClusterName]bool
	}{
		{name: "no filter", want: map[multicluster.ClusterName]bool{"": true, "a": true, "b": true}},
		{name: "only a", filter: only("a"), want: map[multicluster.ClusterName]bool{"": false, "a": true, "b": false}},
		{name: "only b replaces only a", filter: only("b"), want: map[multicluster.ClusterName]bool{"": false, "a": false, "b": true}},
		{name: "nil removes the filter", want: map[multicluster.ClusterName]bool{"": true, "a": true, "b": true}},
	}
	for i, step := range steps {
		if i > 0 {
			if returned := src.WithClusterFilter(step.filter); returned != mcsource.TypedSyncingSource[*corev1.ConfigMap, mcreconcile.Request](src) {
				t.Fatalf("%s: WithClusterFilter returned another source than its receiver", step.name)
			}
		}
		if got := watched(t, src, "", "a", "b"); !equal(got, step.want) {
			t.Errorf("%s: watched clusters %v, want %v", step.name, got, step.want)
		}
	}
	// Only the sources of watched clusters are built; the others are built when they are started.
	if want := 3 + 1 + 1 + 3; builds.count() != want {
		t.Errorf("event handlers built %d times, want %d (once per watched cluster)", builds.count(), want)
	}
}

// WithProjection changes the source it is called on and returns it; a later projection replaces an earlier one.
func TestWithProjectionChangesTheSource(t *testing.T) {
	src := mcsource.Kind(&corev1.ConfigMap{}, mchandler.TypedEnqueueRequestForObject[*corev1.ConfigMap]())
	var projectedBy []string
	projection := func(name string) func(cluster.Cluster, *corev1.ConfigMap) (*corev1.ConfigMap, error) {
		return func(_ cluster.Cluster, cm *corev1.ConfigMap) (*corev1.ConfigMap, error) {
			projectedBy = append(projectedBy, name)
			return cm, nil
		}
	}

	if returned := src.WithProjection(projection("first")); returned != mcsource.TypedSyncingSource[*corev1.ConfigMap, mcreconcile.Request](src) {
		t.Fatal("WithProjection returned another source than its receiver")
	}
	watched(t, src, "a")
	src.WithProjection(projection("second"))
	watched(t, src, "a")
	src.WithProjection(nil)
	watched(t, src, "a")
	if got := strings.Join(projectedBy, ","); got != "first,second" {
		t.Errorf("projections run: %q, want \"first,second\"", got)
	}
}

// The source of a cluster the filter rejects is usable: it is built when started, and a failure to build it is an
// error of Start, naming the cluster, never of ForCluster (a controller, which does not start it, never sees it).
func TestRejectedClusterSourceIsBuiltWhenStarted(t *testing.T) {
	var builds handlerBuilds
	src := mcsource.Kind(&corev1.ConfigMap{}, builds.handler())
	src.WithClusterFilter(only("a"))
	src.WithProjection(func(cluster.Cluster, *corev1.ConfigMap) (*corev1.ConfigMap, error) {
		return nil, errors.New("no projection for this cluster")
	})

	rejected, ok, err := src.SyncingForCluster("b", fakeCluster{})
	if err != nil || ok || rejected == nil {
		t.Fatalf("SyncingForCluster(b) = (%v, %v, %v), want a source, false and no error", rejected, ok, err)
	}
	if builds.count() != 0 {
		t.Errorf("the event handler of a rejected cluster was built before its source started")
	}
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[mcreconcile.Request]())
	defer queue.ShutDown()
	err = rejected.Start(t.Context(), queue)
	if err == nil || !strings.Contains(err.Error(), `cluster "b"`) || !strings.Contains(err.Error(), "no projection for this cluster") {
		t.Errorf("Start() error = %v, want the projection's error naming cluster b", err)
	}
	if err := rejected.WaitForSync(t.Context()); err == nil {
		t.Error("WaitForSync() of a source that could not be built succeeded")
	}

	// The accepted cluster fails in ForCluster, as before.
	if _, _, err := src.ForCluster("a", fakeCluster{}); err == nil {
		t.Error("ForCluster(a) succeeded with a failing projection")
	}
}
