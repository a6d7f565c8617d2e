// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package patterns

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

const (
	colorIndex = "patterns.color"
	shapeIndex = "patterns.shape"
)

func dataIndexer(k string) client.IndexerFunc {
	return func(o client.Object) []string {
		if v, ok := o.(*corev1.ConfigMap).Data[k]; ok {
			return []string{v}
		}
		return nil
	}
}

// listNames lists the ConfigMaps of ns whose field index matches value, with reader, and returns their names.
func listNames(t *testing.T, reader client.Reader, ns, field, value string) ([]string, error) {
	list := &corev1.ConfigMapList{}
	if err := reader.List(t.Context(), list, client.InNamespace(ns), client.MatchingFields{field: value}); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(list.Items))
	for _, cm := range list.Items {
		names = append(names, cm.Name)
	}
	slices.Sort(names)
	return names, nil
}

// checkIndexes lists by both indexes with the cluster's cache and with its (cached) client.
func checkIndexes(t *testing.T, mgr mcmanager.Manager, clusterName, ns string) error {
	cl, err := mgr.GetCluster(t.Context(), multicluster.ClusterName(clusterName))
	if err != nil {
		return err
	}
	for _, reader := range []struct {
		what   string
		reader client.Reader
	}{{"cache", cl.GetCache()}, {"client", cl.GetClient()}} {
		for _, q := range []struct{ field, value, want string }{
			{colorIndex, "red", "red-circle"},
			{colorIndex, "blue", "blue-square"},
			{shapeIndex, "circle", "red-circle"},
			{shapeIndex, "square", "blue-square"},
		} {
			got, err := listNames(t, reader.reader, ns, q.field, q.value)
			if err != nil {
				return fmt.Errorf("cluster %q, %s, %s=%s: %w", clusterName, reader.what, q.field, q.value, err)
			}
			if !slices.Equal(got, []string{q.want}) {
				return fmt.Errorf("cluster %q, %s, %s=%s: got %v, want [%s]", clusterName, reader.what, q.field, q.value, got, q.want)
			}
		}
	}
	return nil
}

// Field indexes registered with mgr.GetFieldIndexer() before the clusters are engaged and after they are engaged
// both reach every cluster: the members engaged at start, a member added after both indexes were registered, and
// the host. Listing by either index through each cluster's cache and client returns exactly the matching objects.
func TestFieldIndexesBeforeAndAfterEngage(t *testing.T) {
	const (
		ns   = "pat-index"
		late = "patterns-index-late"
	)
	createNamespace(t, ns, append([]string{host}, members...)...)
	for _, name := range append([]string{host}, members...) {
		createConfigMap(t, name, ns, "red-circle", map[string]string{"color": "red", "shape": "circle"})
		createConfigMap(t, name, ns, "blue-square", map[string]string{"color": "blue", "shape": "square"})
	}

	provider := memberProvider(t, "member-0", "member-1")
	mgr := harness.NewManager(t, fleet.Host(), provider, nil)
	engaged := newEngageRecorder()
	if err := mgr.Add(engaged); err != nil {
		t.Fatal(err)
	}
	if err := mgr.GetFieldIndexer().IndexField(t.Context(), &corev1.ConfigMap{}, colorIndex, dataIndexer("color")); err != nil {
		t.Fatalf("index before engage: %v", err)
	}
	harness.StartManager(t, t.Context(), mgr)
	for _, name := range []string{"member-0", "member-1"} {
		harness.Eventually(t, 0, name+" engaged", func() bool {
			_, live, _ := engaged.get(name)
			return live
		})
	}

	if err := mgr.GetFieldIndexer().IndexField(t.Context(), &corev1.ConfigMap{}, shapeIndex, dataIndexer("shape")); err != nil {
		t.Fatalf("index after engage: %v", err)
	}
	for _, name := range []string{"member-0", "member-1", ""} {
		eventuallyNoError(t, shortTimeout, fmt.Sprintf("both indexes on cluster %q", name), func() error {
			return checkIndexes(t, mgr, name, ns)
		})
	}

	if err := provider.Add(t.Context(), late, harness.NewCluster(t, fleet, "member-2")); err != nil {
		t.Fatal(err)
	}
	eventuallyNoError(t, shortTimeout, "both indexes on the cluster added last", func() error {
		return checkIndexes(t, mgr, late, ns)
	})
}
