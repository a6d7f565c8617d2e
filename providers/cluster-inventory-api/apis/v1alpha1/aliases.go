// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package v1alpha1

import (
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
)

// The types of the ClusterProfile API, as published.
type (
	// ClusterProfile is the published ClusterProfile.
	ClusterProfile = clusterinventoryv1alpha1.ClusterProfile
	// ClusterProfileList is the published ClusterProfileList.
	ClusterProfileList = clusterinventoryv1alpha1.ClusterProfileList
	// ClusterProfileSpec is the published ClusterProfileSpec.
	ClusterProfileSpec = clusterinventoryv1alpha1.ClusterProfileSpec
	// ClusterProfileStatus is the published ClusterProfileStatus.
	ClusterProfileStatus = clusterinventoryv1alpha1.ClusterProfileStatus
	// ClusterManager is the published ClusterManager.
	ClusterManager = clusterinventoryv1alpha1.ClusterManager
	// ClusterVersion is the published ClusterVersion.
	ClusterVersion = clusterinventoryv1alpha1.ClusterVersion
	// Property is the published Property.
	Property = clusterinventoryv1alpha1.Property
	// AccessProvider is the published AccessProvider: a way to reach the cluster, whose Cluster is a client-go
	// kubeconfig cluster (clientcmd v1).
	AccessProvider = clusterinventoryv1alpha1.AccessProvider
	// CredentialProvider is the published CredentialProvider, itself an alias of AccessProvider.
	CredentialProvider = clusterinventoryv1alpha1.CredentialProvider
)

const (
	// LabelClusterManagerKey labels a ClusterProfile with the name of the tool that manages its cluster.
	LabelClusterManagerKey = clusterinventoryv1alpha1.LabelClusterManagerKey
	// LabelClusterSetKey labels a ClusterProfile with the ClusterSet its cluster belongs to.
	LabelClusterSetKey = clusterinventoryv1alpha1.LabelClusterSetKey

	// ClusterConditionControlPlaneHealthy is the condition type telling whether the cluster's control plane is
	// healthy.
	ClusterConditionControlPlaneHealthy = clusterinventoryv1alpha1.ClusterConditionControlPlaneHealthy
	// ClusterConditionJoined is the condition type telling whether the cluster has joined the inventory, that is,
	// whether its cluster manager can reach and manage it. The published package has no such constant.
	ClusterConditionJoined = "Joined"
)

var (
	// GroupVersion is the group and version of the ClusterProfile API.
	GroupVersion = clusterinventoryv1alpha1.GroupVersion

	// SchemeBuilder is the published package's scheme builder.
	SchemeBuilder = clusterinventoryv1alpha1.SchemeBuilder

	// AddToScheme adds the published ClusterProfile types to a scheme; adding them again, through this function or
	// the published one, changes nothing.
	AddToScheme = clusterinventoryv1alpha1.AddToScheme
)
