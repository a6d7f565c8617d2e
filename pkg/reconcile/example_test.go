// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package reconcile_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// A Request names an object and the cluster it lives in; the empty cluster name is the host cluster.
func ExampleRequest_String() {
	key := types.NamespacedName{Namespace: "default", Name: "nginx"}

	fleet := mcreconcile.Request{Request: reconcile.Request{NamespacedName: key}, ClusterName: "eu-1"}
	host := mcreconcile.Request{Request: reconcile.Request{NamespacedName: key}}

	fmt.Println(fleet)
	fmt.Println(host)
	fmt.Println(fleet.WithCluster("us-2"))
	// Output:
	// cluster://eu-1/default/nginx
	// default/nginx
	// cluster://us-2/default/nginx
}

// WithCluster makes any comparable request type cluster-aware, for controllers with custom request types.
func ExampleWithCluster() {
	req := mcreconcile.WithCluster[string]{Request: "tenant-a", ClusterName: "eu-1"}

	fmt.Println(req)
	fmt.Println(req.Cluster())
	// Output:
	// cluster://eu-1/tenant-a
	// eu-1
}

// NewClusterNotFoundWrapper ends the retries of a request whose cluster has left the fleet. The multi-cluster
// builder applies it by default.
func ExampleNewClusterNotFoundWrapper() {
	r := mcreconcile.NewClusterNotFoundWrapper(mcreconcile.Func(
		func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			// For example, mgr.GetCluster(ctx, req.ClusterName) for a cluster that is gone.
			return ctrl.Result{}, fmt.Errorf("cluster %q: %w", req.ClusterName, multicluster.ErrClusterNotFound)
		}))

	res, err := r.Reconcile(context.TODO(), mcreconcile.Request{ClusterName: "gone"})
	fmt.Println(res.IsZero(), err)
	// Output:
	// true <nil>
}
