// Package v1alpha1 holds the ClusterProfile API of KEP-4322 (group multicluster.x-k8s.io, version v1alpha1): a
// namespaced, portable description of one cluster of an inventory, written by the tool that manages the cluster
// (its "cluster manager") and read by controllers that work across the fleet.
//
// The published module sigs.k8s.io/cluster-inventory-api is not a dependency of this project, so the types are
// defined here with the same group, version, kind, field names and JSON names, so that objects written by other
// tools decode unchanged. Import it as clusterinventoryv1alpha1.
//
// +kubebuilder:object:generate=true
// +groupName=multicluster.x-k8s.io
package v1alpha1
