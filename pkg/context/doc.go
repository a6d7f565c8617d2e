// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package context carries a cluster name in a context.Context.

It lets single-cluster code that only receives a context learn which cluster it is working on: a reconciler adapted
with ReconcilerWithClusterInContext gets controller-runtime's plain reconcile.Request and reads its cluster back with
ClusterFrom or with the manager's ClusterFromContext.
*/
package context
