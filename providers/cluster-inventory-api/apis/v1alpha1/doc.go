// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package v1alpha1 is the earlier home of the ClusterProfile API (KEP-4322, group multicluster.x-k8s.io, version
// v1alpha1) in this module. The provider now uses the published types of sigs.k8s.io/cluster-inventory-api/apis/v1alpha1
// (v0.1.0); every name here is an alias of, or has the value of, its published counterpart, so a ClusterProfile of
// this package is the published ClusterProfile, and registering both packages' AddToScheme with one scheme
// registers the same types twice, which a scheme accepts.
//
// ClusterConditionJoined is the one name the published package lacks: a condition type that cluster managers such
// as Open Cluster Management set, which the provider's default readiness no longer requires.
//
// Deprecated: import sigs.k8s.io/cluster-inventory-api/apis/v1alpha1.
package v1alpha1
