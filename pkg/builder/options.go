// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package builder

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcsource "sigs.k8s.io/multicluster-runtime/pkg/source"
)

// ForOption configures a For watch.
type ForOption interface {
	// ApplyToFor applies the option to a For watch.
	ApplyToFor(*ForInput)
}

// OwnsOption configures an Owns watch.
type OwnsOption interface {
	// ApplyToOwns applies the option to an Owns watch.
	ApplyToOwns(*OwnsInput)
}

// WatchesOption configures a Watches watch.
type WatchesOption interface {
	// ApplyToWatches applies the option to a Watches watch.
	ApplyToWatches(untypedWatchesInput)
}

// untypedWatchesInput is the part of WatchesInput that options set, whatever the request type.
type untypedWatchesInput interface {
	setPredicates([]predicate.Predicate)
	setObjectProjection(objectProjection)
	setEngageOptions(EngageOptions)
}

// Predicates filters the events of a watch.
type Predicates struct {
	predicates []predicate.Predicate
}

// WithPredicates filters the events of one watch with the given predicates, in addition to WithEventFilter's.
func WithPredicates(predicates ...predicate.Predicate) Predicates {
	return Predicates{predicates: predicates}
}

// ApplyToFor applies the predicates to a For watch.
func (w Predicates) ApplyToFor(opts *ForInput) {
	opts.predicates = append(opts.predicates, w.predicates...)
}

// ApplyToOwns applies the predicates to an Owns watch.
func (w Predicates) ApplyToOwns(opts *OwnsInput) {
	opts.predicates = append(opts.predicates, w.predicates...)
}

// ApplyToWatches applies the predicates to a Watches watch.
func (w Predicates) ApplyToWatches(opts untypedWatchesInput) {
	opts.setPredicates(w.predicates)
}

// objectProjection says how the watched object is presented to the cache.
type objectProjection int

const (
	projectAsNormal objectProjection = iota
	projectAsMetadata
)

// projectAs is an option that projects the watched object.
type projectAs objectProjection

// ApplyToFor sets the projection of a For watch.
func (p projectAs) ApplyToFor(opts *ForInput) { opts.objectProjection = objectProjection(p) }

// ApplyToOwns sets the projection of an Owns watch.
func (p projectAs) ApplyToOwns(opts *OwnsInput) { opts.objectProjection = objectProjection(p) }

// ApplyToWatches sets the projection of a Watches watch.
func (p projectAs) ApplyToWatches(opts untypedWatchesInput) {
	opts.setObjectProjection(objectProjection(p))
}

var (
	// OnlyMetadata makes a For, Owns or Watches watch only the metadata of its objects, in every cluster: the
	// caches hold metav1.PartialObjectMetadata, which saves memory for large objects. The reconciler reads such
	// objects as metav1.PartialObjectMetadata with the kind set.
	OnlyMetadata = projectAs(projectAsMetadata)

	_ ForOption     = OnlyMetadata
	_ OwnsOption    = OnlyMetadata
	_ WatchesOption = OnlyMetadata
)

// MatchEveryOwner makes an Owns watch enqueue every owner of the For type, not only the controlling owner.
var MatchEveryOwner = &matchEveryOwner{}

type matchEveryOwner struct{}

// ApplyToOwns makes the Owns watch match every owner.
func (o matchEveryOwner) ApplyToOwns(opts *OwnsInput) {
	opts.matchEveryOwner = true
}

// ClusterFilterFunc decides whether a watch covers the named cluster.
type ClusterFilterFunc = mcsource.ClusterFilterFunc

// EngageOptions choose the clusters a watch covers. Options that are not set keep their defaults: the fleet's
// clusters are watched and the host cluster is not, except in single-cluster mode (no provider, or a
// multicluster.HostOnly one), where the host cluster is watched. Cluster filters restrict the fleet only.
type EngageOptions struct {
	engageWithLocalCluster     *bool
	engageWithProviderClusters *bool
	// clusterFilter is a pointer so that EngageOptions stays comparable, as the reference implementation's is.
	clusterFilter *ClusterFilterFunc
}

// WithEngageWithLocalCluster sets whether the watch covers the host cluster (the manager's LocalCluster).
func WithEngageWithLocalCluster(engage bool) EngageOptions {
	return EngageOptions{engageWithLocalCluster: &engage}
}

// WithEngageWithProviderClusters sets whether the watch covers the clusters of the fleet.
func WithEngageWithProviderClusters(engage bool) EngageOptions {
	return EngageOptions{engageWithProviderClusters: &engage}
}

// WithClusterFilter restricts the watch's clusters of the fleet to those filter accepts. As in the reference
// implementation, it is not asked about the host cluster: a watch covers the host exactly when
// WithEngageWithLocalCluster (or single-cluster mode) says so. Filters given in several options must all accept a
// cluster.
func WithClusterFilter(filter ClusterFilterFunc) EngageOptions {
	if filter == nil {
		return EngageOptions{}
	}
	return EngageOptions{clusterFilter: &filter}
}

// WithClustersFromProvider restricts the watch's clusters of the fleet to those that provider returns from Get, as
// the same instance the watch is engaged with. Use it when a manager's fleet comes from several providers (for example through the
// multi provider) and a watch concerns one of them.
func WithClustersFromProvider(ctx context.Context, provider multicluster.Provider) EngageOptions {
	return WithClusterFilter(func(name multicluster.ClusterName, cl cluster.Cluster) bool {
		got, err := provider.Get(ctx, name)
		return err == nil && got == cl
	})
}

// ApplyToFor applies the engage options to a For watch.
func (w EngageOptions) ApplyToFor(opts *ForInput) { opts.EngageOptions = opts.merge(w) }

// ApplyToOwns applies the engage options to an Owns watch.
func (w EngageOptions) ApplyToOwns(opts *OwnsInput) { opts.EngageOptions = opts.merge(w) }

// ApplyToWatches applies the engage options to a Watches watch.
func (w EngageOptions) ApplyToWatches(opts untypedWatchesInput) { opts.setEngageOptions(w) }

// merge returns w with the options set in other applied on top; filters accumulate.
func (w EngageOptions) merge(other EngageOptions) EngageOptions {
	if other.engageWithLocalCluster != nil {
		w.engageWithLocalCluster = other.engageWithLocalCluster
	}
	if other.engageWithProviderClusters != nil {
		w.engageWithProviderClusters = other.engageWithProviderClusters
	}
	if other.clusterFilter != nil {
		if w.clusterFilter != nil {
			previous, next := *w.clusterFilter, *other.clusterFilter
			both := ClusterFilterFunc(func(name multicluster.ClusterName, cl cluster.Cluster) bool {
				return previous(name, cl) && next(name, cl)
			})
			w.clusterFilter = &both
		} else {
			w.clusterFilter = other.clusterFilter
		}
	}
	return w
}

// accepts reports whether the options' filter, if any, accepts the cluster.
func (w EngageOptions) accepts(name multicluster.ClusterName, cl cluster.Cluster) bool {
	return w.clusterFilter == nil || (*w.clusterFilter)(name, cl)
}
