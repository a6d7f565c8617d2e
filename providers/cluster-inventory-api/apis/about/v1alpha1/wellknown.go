// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package v1alpha1

// The well-known properties of KEP-2149.
const (
	// ClusterIDPropertyName is the well-known property holding the cluster's ID: unique within its ClusterSet,
	// immutable while the cluster is a member, an RFC 1123 DNS subdomain.
	ClusterIDPropertyName = "cluster.clusterset.k8s.io"
	// LegacyClusterIDPropertyName is the name earlier drafts of KEP-2149 gave to the cluster ID property; read it
	// where ClusterIDPropertyName is absent.
	LegacyClusterIDPropertyName = "id.k8s.io"
	// ClusterSetPropertyName is the well-known property holding the ClusterSet the cluster belongs to, present
	// exactly while it is a member.
	ClusterSetPropertyName = "clusterset.k8s.io"
)
