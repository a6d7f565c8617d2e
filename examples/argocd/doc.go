// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package argocd is a multicluster-runtime provider whose clusters are the cluster Secrets of Argo CD: Secrets
// labelled argocd.argoproj.io/secret-type=cluster in Argo CD's namespace on the host cluster, each holding the
// server of one cluster and, under the key "config", how to reach it (a bearer token or a client certificate, and
// the CA). A program that already keeps its fleet in Argo CD reconciles across the same clusters with it.
//
// It is written as a provider outside the multicluster-runtime repository would be, from its public API only: the
// provider kit's Engager (sigs.k8s.io/multicluster-runtime/pkg/clusters) builds, engages, replaces, retries and
// stops the clusters, and the provider only reads its source. It reads the Secrets through the host manager's cache,
// so it follows the convention of providers that need the host manager: SetupWithManager registers its watch, and
// the manager starts the provider.
//
// Main entry points:
//
//   - New and Options: the provider, for mcmanager.New.
//   - Provider.SetupWithManager: watch the cluster Secrets through the host manager.
//   - RESTConfig: the rest.Config of a cluster Secret, or an error saying what is wrong with it.
package argocd
