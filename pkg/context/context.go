// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package context

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

type clusterKey struct{}

// WithCluster returns a copy of ctx that carries the cluster name.
func WithCluster(ctx context.Context, cluster multicluster.ClusterName) context.Context {
	return context.WithValue(ctx, clusterKey{}, cluster)
}

// ClusterFrom returns the cluster name carried by ctx, and whether there was one. The empty name with true means
// the host cluster.
func ClusterFrom(ctx context.Context) (multicluster.ClusterName, bool) {
	cluster, ok := ctx.Value(clusterKey{}).(multicluster.ClusterName)
	return cluster, ok
}

// ReconcilerWithClusterInContext adapts a single-cluster reconciler to multi-cluster requests: it is called with
// the request's object key, and the cluster name travels in the context (read it with ClusterFrom or the
// manager's ClusterFromContext).
func ReconcilerWithClusterInContext(r reconcile.Reconciler) mcreconcile.Reconciler {
	return mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
		return r.Reconcile(WithCluster(ctx, req.ClusterName), req.Request)
	})
}
