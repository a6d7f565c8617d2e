// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package reconcile

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Reconciler reconciles multi-cluster requests. It is controller-runtime's TypedReconciler over Request.
type Reconciler = reconcile.TypedReconciler[Request]

// Func is a function that implements Reconciler.
type Func = reconcile.TypedFunc[Request]

// ClusterAware is the constraint on request types of multi-cluster controllers: a comparable request that knows
// the cluster it belongs to and can be copied into another cluster.
type ClusterAware[request comparable] interface {
	comparable
	fmt.Stringer

	// Cluster returns the name of the cluster the request belongs to; the empty name is the host cluster.
	Cluster() multicluster.ClusterName
	// WithCluster returns a copy of the request that belongs to the named cluster.
	WithCluster(multicluster.ClusterName) request
}

// Request is a request to reconcile one object of one cluster: controller-runtime's reconcile.Request plus the
// cluster name. The empty ClusterName is the host cluster.
type Request struct {
	reconcile.Request

	// ClusterName is the name of the cluster the object lives in.
	ClusterName multicluster.ClusterName
}

// String returns "cluster://<cluster>/<namespace>/<name>", or controller-runtime's "<namespace>/<name>" for the
// host cluster.
func (r Request) String() string {
	if r.ClusterName == "" {
		return r.NamespacedName.String()
	}
	return "cluster://" + r.ClusterName.String() + "/" + r.NamespacedName.String()
}

// Cluster returns the name of the cluster the request belongs to.
func (r Request) Cluster() multicluster.ClusterName {
	return r.ClusterName
}

// WithCluster returns a copy of the request that belongs to the named cluster.
func (r Request) WithCluster(name multicluster.ClusterName) Request {
	r.ClusterName = name
	return r
}

// WithCluster wraps any comparable request type with a cluster name, making it ClusterAware.
type WithCluster[request comparable] struct {
	// Request is the wrapped request.
	Request request

	// ClusterName is the name of the cluster the request belongs to; empty is the host cluster.
	ClusterName multicluster.ClusterName
}

// String returns "cluster://<cluster>/<request>", or the wrapped request's string form for the host cluster.
func (r WithCluster[request]) String() string {
	if r.ClusterName == "" {
		return fmt.Sprint(r.Request)
	}
	return "cluster://" + r.ClusterName.String() + "/" + fmt.Sprint(r.Request)
}

// Cluster returns the name of the cluster the request belongs to.
func (r WithCluster[request]) Cluster() multicluster.ClusterName {
	return r.ClusterName
}

// WithCluster returns a copy of the request that belongs to the named cluster.
func (r WithCluster[request]) WithCluster(name multicluster.ClusterName) WithCluster[request] {
	r.ClusterName = name
	return r
}

// assertClusterAware fails to compile unless request satisfies ClusterAware.
func assertClusterAware[request ClusterAware[request]]() {}

var (
	_ = assertClusterAware[Request]
	_ = assertClusterAware[WithCluster[string]]
)
