// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package v1alpha1 holds the ClusterProperty API of KEP-2149 (group about.k8s.io, version v1alpha1): cluster-scoped
// name/value properties a cluster states about itself, among them its ID within a ClusterSet
// (cluster.clusterset.k8s.io) and the ClusterSet it belongs to (clusterset.k8s.io).
//
// The published module sigs.k8s.io/about-api is not a dependency of this project, so the type is defined here with
// the same group, version, kind, field names and JSON names. Import it as aboutv1alpha1.
//
// +kubebuilder:object:generate=true
// +groupName=about.k8s.io
package v1alpha1
