// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespace

import "sigs.k8s.io/multicluster-runtime/pkg/namespaced"

// The virtual clusters of this provider are namespace-scoped clusters of package namespaced; these names are
// theirs, kept here for code written against this package.
type (
	// NamespacedCluster is a virtual cluster: one namespace of the shared cluster, presented as a cluster whose
	// namespace "default" is that namespace. See namespaced.Cluster.
	NamespacedCluster = namespaced.Cluster
	// NamespacedClient is the client of a virtual cluster. See namespaced.Client.
	NamespacedClient = namespaced.Client
	// SubResourceNamespacedClient is the sub-resource client of a virtual cluster. See namespaced.SubResourceClient.
	SubResourceNamespacedClient = namespaced.SubResourceClient
	// NamespacedCache is the cache of a virtual cluster. See namespaced.Cache.
	NamespacedCache = namespaced.Cache
	// ScopedInformer is an informer of a virtual cluster. See namespaced.Informer.
	ScopedInformer = namespaced.Informer
)
