// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package multicluster

import (
	"context"
	"errors"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
)

// ErrClusterNotFound is returned (possibly wrapped; test with errors.Is) when a cluster name is not known, for
// example because the cluster has left the fleet. Controllers built with the multi-cluster builder treat it as
// "the cluster is gone" and stop retrying the request.
var ErrClusterNotFound = errors.New("cluster not found")

// Aware is implemented by components that act on clusters handed to them, such as the multi-cluster manager and
// multi-cluster controllers.
type Aware interface {
	// Engage hands the named cluster to the component. The context is the cluster's lifetime: when it is done, the
	// component stops everything it started for the cluster. Implementations must not block on the cluster (for
	// example on its cache syncing), must treat engaging the same cluster instance under the same name again as a
	// no-op, and must treat a different instance under an already engaged name as a replacement of the old one.
	Engage(context.Context, ClusterName, cluster.Cluster) error
}

// Provider is the contract a source of clusters implements: it knows the clusters of the fleet by name and how to
// reach them.
type Provider interface {
	// Get returns the cluster with the given name. It returns an error that matches ErrClusterNotFound for names it
	// does not know. A provider makes a cluster retrievable with Get before it engages it, and keeps it so until the
	// cluster's context is done.
	Get(ctx context.Context, clusterName ClusterName) (cluster.Cluster, error)

	// IndexField registers a field index for obj on every cluster the provider has engaged and on every cluster it
	// will engage later. With a cache shared by several clusters, the index is registered once on that cache.
	IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error
}

// ProviderRunnable is implemented by providers that run a discovery loop. The manager starts such a provider when
// it starts, exactly once; users never need to start it themselves.
type ProviderRunnable interface {
	// Start runs the discovery loop, engaging clusters with aware as they appear and cancelling their contexts as
	// they go. It blocks until ctx is done.
	Start(context.Context, Aware) error
}

// HostOnly may be implemented by a Provider that never has clusters of its own, such as the nop provider. A
// manager with such a provider (or with no provider at all) runs in single-cluster mode: controllers built for it
// watch the host cluster by default, so the same reconciler runs unchanged without a fleet.
type HostOnly interface {
	// HostOnly reports whether the provider never engages clusters.
	HostOnly() bool
}

// IsHostOnly reports whether a manager using provider runs in single-cluster mode: provider is nil or declares
// itself HostOnly.
func IsHostOnly(provider Provider) bool {
	if provider == nil {
		return true
	}
	h, ok := provider.(HostOnly)
	return ok && h.HostOnly()
}

// ClusterLister is implemented by providers that can list the clusters they have engaged. Every provider of this
// repository implements it.
type ClusterLister interface {
	// ClusterNames returns the names of the clusters the provider has engaged and not yet disengaged, sorted. A
	// cluster is listed at the latest from the moment it is handed to Aware.Engage, so that a component reacting to
	// the engagement finds it listed, until its context ends.
	ClusterNames() []ClusterName
}
