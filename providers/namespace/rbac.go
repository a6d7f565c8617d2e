// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespace

// The rights the provider needs on the host, as kubebuilder RBAC markers for controller-gen: a ClusterRole to list
// and watch Namespaces. config/rbac/role.yaml is the same ClusterRole as a manifest; TestRBAC checks that both say
// the same and runs the provider with exactly these rights. The controllers' own work in the virtual clusters needs
// rights of its own.

// +kubebuilder:rbac:groups="",resources=namespaces,verbs=list;watch
