// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package builder

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// engageOf applies opts to a For, an Owns and a Watches input and returns the three resulting engage options.
func engageOf(opts ...EngageOptions) map[string]EngageOptions {
	var forIn ForInput
	var ownsIn OwnsInput
	var watchesIn WatchesInput[mcreconcile.Request]
	for _, o := range opts {
		o.ApplyToFor(&forIn)
		o.ApplyToOwns(&ownsIn)
		o.ApplyToWatches(&watchesIn)
	}
	return map[string]EngageOptions{"For": forIn.EngageOptions, "Owns": ownsIn.EngageOptions, "Watches": watchesIn.EngageOptions}
}

func boolPtrString(b *bool) string {
	if b == nil {
		return "unset"
	}
	return fmt.Sprint(*b)
}

func TestEngageOptionsMerge(t *testing.T) {
	tests := []struct {
		name          string
		opts          []EngageOptions
		wantLocal     string
		wantProviders string
	}{
		{name: "none", wantLocal: "unset", wantProviders: "unset"},
		{name: "local", opts: []EngageOptions{WithEngageWithLocalCluster(true)}, wantLocal: "true", wantProviders: "unset"},
		{name: "providers", opts: []EngageOptions{WithEngageWithProviderClusters(false)}, wantLocal: "unset", wantProviders: "false"},
		{
			name:          "later local overrides earlier",
			opts:          []EngageOptions{WithEngageWithLocalCluster(true), WithEngageWithLocalCluster(false)},
			wantLocal:     "false",
			wantProviders: "unset",
		},
		{
			name:          "later providers overrides earlier",
			opts:          []EngageOptions{WithEngageWithProviderClusters(false), WithEngageWithProviderClusters(true)},
			wantLocal:     "unset",
			wantProviders: "true",
		},
		{
			name: "unset fields keep earlier values",
			opts: []EngageOptions{
				WithEngageWithLocalCluster(true),
				WithEngageWithProviderClusters(false),
				WithClusterFilter(func(multicluster.ClusterName, cluster.Cluster) bool { return true }),
				{},
			},
			wantLocal:     "true",
			wantProviders: "false",
		},
	}
	for _, tt := range tests {
		for input, got := range engageOf(tt.opts...) {
			t.Run(tt.name+"/"+input, func(t *testing.T) {
				if s := boolPtrString(got.engageWithLocalCluster); s != tt.wantLocal {
					t.Errorf("engageWithLocalCluster = %s, want %s", s, tt.wantLocal)
				}
				if s := boolPtrString(got.engageWithProviderClusters); s != tt.wantProviders {
					t.Errorf("engageWithProviderClusters = %s, want %s", s, tt.wantProviders)
				}
			})
		}
	}
}

func TestEngageOptionsFiltersAreANDed(t *testing.T) {
	prefixA := WithClusterFilter(func(name multicluster.ClusterName, _ cluster.Cluster) bool {
		return strings.HasPrefix(name.String(), "a")
	})
	suffix1 := WithClusterFilter(func(name multicluster.ClusterName, _ cluster.Cluster) bool {
		return strings.HasSuffix(name.String(), "1")
	})

	tests := []struct {
		name string
		opts []EngageOptions
		want map[multicluster.ClusterName]bool
	}{
		{
			name: "no filter accepts everything",
			want: map[multicluster.ClusterName]bool{"a1": true, "a2": true, "b1": true, "": true},
		},
		{
			name: "one filter",
			opts: []EngageOptions{prefixA},
			want: map[multicluster.ClusterName]bool{"a1": true, "a2": true, "b1": false, "": false},
		},
		{
			name: "two filters",
			opts: []EngageOptions{prefixA, suffix1},
			want: map[multicluster.ClusterName]bool{"a1": true, "a2": false, "b1": false, "": false},
		},
		{
			name: "a filter survives options without one",
			opts: []EngageOptions{prefixA, WithEngageWithLocalCluster(true), suffix1, WithEngageWithProviderClusters(true)},
			want: map[multicluster.ClusterName]bool{"a1": true, "a2": false, "b1": false, "": false},
		},
	}
	for _, tt := range tests {
		for input, got := range engageOf(tt.opts...) {
			t.Run(tt.name+"/"+input, func(t *testing.T) {
				for name, want := range tt.want {
					if accepted := got.accepts(name, nil); accepted != want {
						t.Errorf("accepts(%q) = %v, want %v", name, accepted, want)
					}
				}
			})
		}
	}
}

func TestEngageOptionsMergeDoesNotAliasFilters(t *testing.T) {
	// Merging into one input must not change the options it was merged from, which another input may share.
	base := WithClusterFilter(func(name multicluster.ClusterName, _ cluster.Cluster) bool { return name != "x" })
	var first, second ForInput
	base.ApplyToFor(&first)
	WithClusterFilter(func(multicluster.ClusterName, cluster.Cluster) bool { return false }).ApplyToFor(&first)
	base.ApplyToFor(&second)

	if first.accepts("a", nil) {
		t.Error("first input accepts a cluster its second filter rejects")
	}
	if !second.accepts("a", nil) || second.accepts("x", nil) {
		t.Error("second input does not behave like the base filter alone")
	}
}

// fakeCluster is a distinct cluster.Cluster value with a scheme; its other methods panic.
type fakeCluster struct {
	cluster.Cluster
	name   string
	scheme *runtime.Scheme
}

func (c *fakeCluster) GetScheme() *runtime.Scheme { return c.scheme }

// mapProvider serves clusters from a map.
type mapProvider map[multicluster.ClusterName]cluster.Cluster

func (p mapProvider) Get(_ context.Context, name multicluster.ClusterName) (cluster.Cluster, error) {
	if cl, ok := p[name]; ok {
		return cl, nil
	}
	return nil, fmt.Errorf("cluster %q: %w", name, multicluster.ErrClusterNotFound)
}

func (p mapProvider) IndexField(context.Context, client.Object, string, client.IndexerFunc) error {
	return errors.New("not implemented")
}

func TestWithClustersFromProvider(t *testing.T) {
	a, b := &fakeCluster{name: "a"}, &fakeCluster{name: "b"}
	provider := mapProvider{"a": a, "b": b}
	opts := WithClustersFromProvider(t.Context(), provider)

	tests := []struct {
		name    multicluster.ClusterName
		cluster cluster.Cluster
		want    bool
	}{
		{name: "a", cluster: a, want: true},
		{name: "b", cluster: b, want: true},
		{name: "a", cluster: b, want: false},
		{name: "a", cluster: &fakeCluster{name: "a"}, want: false},
		{name: "c", cluster: &fakeCluster{name: "c"}, want: false},
		{name: "", cluster: nil, want: false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s=%v", tt.name, tt.cluster), func(t *testing.T) {
			if got := opts.accepts(tt.name, tt.cluster); got != tt.want {
				t.Errorf("accepts(%q, %p) = %v, want %v", tt.name, tt.cluster, got, tt.want)
			}
		})
	}
}

func TestPredicatesAccumulate(t *testing.T) {
	p1, p2, p3 := predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{}, predicate.AnnotationChangedPredicate{}

	var forIn ForInput
	WithPredicates(p1, p2).ApplyToFor(&forIn)
	WithPredicates(p3).ApplyToFor(&forIn)
	if len(forIn.predicates) != 3 {
		t.Errorf("For predicates = %v, want 3", forIn.predicates)
	}

	var ownsIn OwnsInput
	WithPredicates(p1).ApplyToOwns(&ownsIn)
	WithPredicates(p2, p3).ApplyToOwns(&ownsIn)
	if len(ownsIn.predicates) != 3 {
		t.Errorf("Owns predicates = %v, want 3", ownsIn.predicates)
	}

	var watchesIn WatchesInput[mcreconcile.Request]
	WithPredicates(p1).ApplyToWatches(&watchesIn)
	WithPredicates(p2).ApplyToWatches(&watchesIn)
	if len(watchesIn.predicates) != 2 {
		t.Errorf("Watches predicates = %v, want 2", watchesIn.predicates)
	}
}

func TestProjectionAndOwnerOptions(t *testing.T) {
	var forIn ForInput
	OnlyMetadata.ApplyToFor(&forIn)
	var ownsIn OwnsInput
	OnlyMetadata.ApplyToOwns(&ownsIn)
	MatchEveryOwner.ApplyToOwns(&ownsIn)
	var watchesIn WatchesInput[mcreconcile.Request]
	OnlyMetadata.ApplyToWatches(&watchesIn)

	if forIn.objectProjection != projectAsMetadata || ownsIn.objectProjection != projectAsMetadata || watchesIn.objectProjection != projectAsMetadata {
		t.Errorf("OnlyMetadata did not project every input as metadata: For %v, Owns %v, Watches %v",
			forIn.objectProjection, ownsIn.objectProjection, watchesIn.objectProjection)
	}
	if !ownsIn.matchEveryOwner {
		t.Error("MatchEveryOwner did not set matchEveryOwner")
	}
	var plain OwnsInput
	if plain.matchEveryOwner {
		t.Error("Owns matches every owner by default")
	}
}

func TestAsMetadata(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	cl := &fakeCluster{name: "c", scheme: scheme}

	got, err := asMetadata(cl, &corev1.ConfigMap{})
	if err != nil {
		t.Fatalf("asMetadata(ConfigMap) error = %v", err)
	}
	meta, ok := got.(*metav1.PartialObjectMetadata)
	if !ok {
		t.Fatalf("asMetadata(ConfigMap) = %T, want *metav1.PartialObjectMetadata", got)
	}
	if want := (schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}); meta.GroupVersionKind() != want {
		t.Errorf("asMetadata(ConfigMap) kind = %v, want %v", meta.GroupVersionKind(), want)
	}

	already := &metav1.PartialObjectMetadata{}
	if got, err := asMetadata(cl, already); err != nil || got != already {
		t.Errorf("asMetadata(PartialObjectMetadata) = (%p, %v), want the same object", got, err)
	}

	if _, err := asMetadata(&fakeCluster{name: "c", scheme: runtime.NewScheme()}, &corev1.ConfigMap{}); err == nil {
		t.Error("asMetadata of a type the cluster's scheme does not know succeeded")
	}
}
