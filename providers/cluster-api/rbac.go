// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package capi

// The rights the provider needs on the host (the management cluster), as kubebuilder RBAC markers for
// controller-gen: a ClusterRole, since Cluster objects and their kubeconfig Secrets live in every namespace.
// config/rbac/role.yaml is the same ClusterRole as a manifest; TestRBAC checks that both say the same and runs the
// provider with exactly these rights. With Options.ObjectToWatch set to another kind, grant list and watch on that
// kind instead of clusters.

// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters,verbs=list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
