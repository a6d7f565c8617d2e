// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusterinventoryapi

// The rights the provider needs on the hub (the host cluster), as kubebuilder RBAC markers for controller-gen: a
// ClusterRole, since ClusterProfiles live in every namespace. config/rbac/role.yaml is the same ClusterRole as a
// manifest; TestRBACMarkers checks that both say the same, and TestRBAC runs the provider with exactly these rights.
// With the AccessProvider strategy, the rule on Secrets can be dropped.

// +kubebuilder:rbac:groups=multicluster.x-k8s.io,resources=clusterprofiles,verbs=list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
