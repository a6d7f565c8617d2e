// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package builder provides the multi-cluster controller builder: the counterpart of controller-runtime's builder,
with which most multi-cluster controllers are written.

	err := mcbuilder.ControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Owns(&corev1.Secret{}).
		Complete(reconciler)

For, Owns and Watches watch their object in every cluster of the fleet. EngageOptions choose the clusters per
watch: WithEngageWithLocalCluster(true) adds the host cluster, WithEngageWithProviderClusters(false) leaves out the
fleet, WithClusterFilter and WithClustersFromProvider restrict the fleet. In single-cluster mode (a manager without a
provider, or with the nop provider) watches default to the host cluster, so the same controller runs unchanged.

The reconciler is wrapped with mcreconcile.NewClusterNotFoundWrapper unless WithClusterNotFoundWrapper(false) is
set: a request whose cluster has left the fleet ends instead of being retried forever.

WebhookManagedBy registers admission webhooks with the host manager, like controller-runtime's.
*/
package builder
