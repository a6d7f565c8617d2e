// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespace_test

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

func dataField(key string) client.IndexerFunc {
	return func(obj client.Object) []string {
		if v, ok := obj.(*corev1.ConfigMap).Data[key]; ok {
			return []string{v}
		}
		return nil
	}
}

// listMatching returns the names of the ConfigMaps reader lists with field=value, checking they are presented.
func listMatching(t *testing.T, reader client.Reader, field, value string) []string {
	t.Helper()
	list := &corev1.ConfigMapList{}
	if err := reader.List(t.Context(), list, client.MatchingFields{field: value}); err != nil {
		t.Fatalf("list with %s=%s: %v", field, value, err)
	}
	names := make([]string, 0, len(list.Items))
	for i := range list.Items {
		if ns := list.Items[i].Namespace; ns != metav1.NamespaceDefault {
			t.Fatalf("indexed list item %s: namespace %q, want it presented as %q", list.Items[i].Name, ns, metav1.NamespaceDefault)
		}
		names = append(names, list.Items[i].Name)
	}
	slices.Sort(names)
	return names
}

// Field indexes registered before and after namespaces appear, through the provider, the manager's field indexer,
// a virtual cluster's field indexer or cache, all land once on the shared cache: registering a field again is no
// "indexer conflict", and List with MatchingFields through each virtual cluster's client and cache finds only
// that virtual cluster's objects.
func TestIndexesAreSharedAndScoped(t *testing.T) {
	c := hostClient(t)
	a, b := harness.UniqueName("idx-a"), harness.UniqueName("idx-b")
	harness.CreateNamespaces(t, c, a, b)
	for _, ns := range []string{a, b} {
		harness.CreateConfigMapWithClient(t, c, ns, "red-1", map[string]string{"color": "red", "size": "s"})
		harness.CreateConfigMapWithClient(t, c, ns, "red-2", map[string]string{"color": "red", "size": "l"})
		harness.CreateConfigMapWithClient(t, c, ns, "blue", map[string]string{"color": "blue", "size": "s"})
	}

	mgr, p := newNamespaceManager(t)
	// Before any namespace is discovered (and before the shared cluster starts), twice.
	for range 2 {
		if err := p.IndexField(t.Context(), &corev1.ConfigMap{}, "data.color", dataField("color")); err != nil {
			t.Fatal(err)
		}
	}
	// Through the manager: the host manager's own cache and, through the provider, the shared cache.
	if err := mgr.GetFieldIndexer().IndexField(t.Context(), &corev1.ConfigMap{}, "data.color", dataField("color")); err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)
	vcA, vcB := virtualCluster(t, p, a), virtualCluster(t, p, b)

	// After the namespaces appeared: once through the manager (whose host-cluster half, the host manager's own
	// cache, is not this package's and refuses a second registration), then through every path of the provider,
	// each more than once.
	ctx, field := t.Context(), "data.size"
	if err := mgr.GetFieldIndexer().IndexField(ctx, &corev1.ConfigMap{}, field, dataField("size")); err != nil {
		t.Fatal(err)
	}
	registrations := []func(context.Context) error{
		func(ctx context.Context) error {
			return p.IndexField(ctx, &corev1.ConfigMap{}, field, dataField("size"))
		},
		func(ctx context.Context) error {
			return vcA.GetFieldIndexer().IndexField(ctx, &corev1.ConfigMap{}, field, dataField("size"))
		},
		func(ctx context.Context) error {
			return vcB.GetCache().IndexField(ctx, &corev1.ConfigMap{}, field, dataField("size"))
		},
		func(ctx context.Context) error {
			return vcA.GetCache().IndexField(ctx, &corev1.ConfigMap{}, "data.color", dataField("color"))
		},
	}
	for range 2 {
		for _, register := range registrations {
			if err := register(ctx); err != nil {
				t.Fatalf("registering an index again: %v", err)
			}
		}
	}

	for _, vc := range []*namespace.NamespacedCluster{vcA, vcB} {
		for _, reader := range []client.Reader{vc.GetClient(), vc.GetCache()} {
			harness.Eventually(t, harness.ShortWait, "indexed objects", func() bool {
				return slices.Equal(listMatching(t, reader, "data.color", "red"), []string{"red-1", "red-2"})
			})
			if got := listMatching(t, reader, "data.size", "s"); !slices.Equal(got, []string{"blue", "red-1"}) {
				t.Fatalf("%s: data.size=s listed %v", vc.Name(), got)
			}
			list := &corev1.ConfigMapList{}
			err := reader.List(ctx, list, client.MatchingFields{"data.color": "red"}, client.InNamespace(metav1.NamespaceDefault))
			if err != nil || len(list.Items) != 2 {
				t.Fatalf("%s: indexed list in namespace default: %d items, %v", vc.Name(), len(list.Items), err)
			}
		}
	}
}

// When the shared cluster is the host manager itself, the manager's field indexer registers an index on the host
// cache and then, through the provider, on the same cache again: the provider sees the index is there and does
// not fail with an "indexer conflict".
func TestIndexOnTheManagersOwnCluster(t *testing.T) {
	c := hostClient(t)
	a := harness.UniqueName("idx-own")
	harness.CreateNamespaces(t, c, a)
	harness.CreateConfigMapWithClient(t, c, a, "red", map[string]string{"color": "red"})
	harness.CreateConfigMapWithClient(t, c, a, "blue", map[string]string{"color": "blue"})

	local, err := manager.New(fleet.Host(), manager.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	p := namespace.New(local)
	mgr, err := mcmanager.WithMultiCluster(local, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := mgr.GetFieldIndexer().IndexField(t.Context(), &corev1.ConfigMap{}, "data.color", dataField("color")); err != nil {
		t.Fatalf("indexing through the manager whose cluster is shared: %v", err)
	}
	harness.StartManager(t, t.Context(), mgr)
	if err := mgr.GetFieldIndexer().IndexField(t.Context(), &corev1.ConfigMap{}, "data.other", dataField("other")); err != nil {
		t.Fatalf("indexing through the manager once it runs: %v", err)
	}
	vc := virtualCluster(t, p, a)
	harness.Eventually(t, harness.ShortWait, "indexed list", func() bool {
		return slices.Equal(listMatching(t, vc.GetClient(), "data.color", "red"), []string{"red"})
	})
}
