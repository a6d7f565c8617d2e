// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package reconcile

import (
	"context"
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// ClusterNotFoundWrapper wraps a reconciler so that a request whose cluster has left the fleet ends in success
// instead of being retried forever: an error matching multicluster.ErrClusterNotFound is logged and dropped.
type ClusterNotFoundWrapper[request comparable] struct {
	wrapped reconcile.TypedReconciler[request]
}

// NewClusterNotFoundWrapper returns a reconciler that calls w and turns an error matching
// multicluster.ErrClusterNotFound into success without requeue. Any other result is passed through unchanged.
func NewClusterNotFoundWrapper[request comparable](w reconcile.TypedReconciler[request]) reconcile.TypedReconciler[request] {
	return &ClusterNotFoundWrapper[request]{wrapped: w}
}

// Reconcile calls the wrapped reconciler, turning multicluster.ErrClusterNotFound into success.
func (r *ClusterNotFoundWrapper[request]) Reconcile(ctx context.Context, req request) (reconcile.Result, error) {
	res, err := r.wrapped.Reconcile(ctx, req)
	if errors.Is(err, multicluster.ErrClusterNotFound) {
		log.FromContext(ctx).V(1).Info("Cluster of the request is gone, not requeueing", "error", err.Error())
		return reconcile.Result{}, nil
	}
	return res, err
}

// String describes the wrapper and the reconciler it wraps.
func (r *ClusterNotFoundWrapper[request]) String() string {
	return fmt.Sprintf("ClusterNotFoundWrapper{%v}", r.wrapped)
}
