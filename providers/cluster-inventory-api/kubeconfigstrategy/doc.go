// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package kubeconfigstrategy decides how the cluster-inventory-api provider obtains a rest.Config for a
// ClusterProfile's cluster. The strategy is chosen with Option:
//
//   - AccessProvider (the one to use): the profile's status.accessProviders (or the older
//     status.credentialProviders) and a KEP-5339 access-provider file (package access): client-go runs the
//     credential plugin the file names for the first type the profile offers, and refreshes the credential.
//   - Secret (deprecated): a kubeconfig stored on the hub in a Secret in the profile's namespace, labelled
//     x-k8s.io/cluster-inventory-consumer=<consumer name> and x-k8s.io/cluster-profile=<profile name>, under the
//     data key "Config". A change to such a Secret re-reconciles its profile (CustomWatches).
//   - CredentialsProvider (deprecated): the earlier name of AccessProvider; it behaves the same.
//
// Main entry points: Option and New build an Interface, whose GetKubeConfig the provider calls for each ready
// profile.
package kubeconfigstrategy
