// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package clusters provides a provider fed by hand with pre-built clusters, built on the Clusters helper of
sigs.k8s.io/multicluster-runtime/pkg/clusters. It suits tests and programs that build their own cluster.Cluster
values: Add a cluster to engage it, Remove it to disengage it.
*/
package clusters
