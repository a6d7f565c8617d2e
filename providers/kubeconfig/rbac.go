// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig

// The rights the provider needs on the host, as kubebuilder RBAC markers for controller-gen: a Role in the namespace
// it watches (Options.Namespace; "system" is kubebuilder's placeholder, which kustomize replaces with the
// controller's namespace). config/rbac/role.yaml is the same Role as a manifest; TestRBAC checks that both say the
// same and runs the provider with exactly these rights.

// +kubebuilder:rbac:groups="",namespace=system,resources=secrets,verbs=list;watch
// +kubebuilder:rbac:groups=events.k8s.io,namespace=system,resources=events,verbs=create;patch
