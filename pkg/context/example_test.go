// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package context_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mccontext "sigs.k8s.io/multicluster-runtime/pkg/context"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// WithCluster and ClusterFrom carry a cluster name through code that only receives a context.
func ExampleClusterFrom() {
	ctx := mccontext.WithCluster(context.TODO(), "eu-1")

	name, ok := mccontext.ClusterFrom(ctx)
	fmt.Printf("%q %v\n", name, ok)

	name, ok = mccontext.ClusterFrom(mccontext.WithCluster(context.TODO(), ""))
	fmt.Printf("%q %v (the host cluster)\n", name, ok)

	_, ok = mccontext.ClusterFrom(context.TODO())
	fmt.Println(ok)
	// Output:
	// "eu-1" true
	// "" true (the host cluster)
	// false
}

// ReconcilerWithClusterInContext runs a reconciler written for controller-runtime's plain requests in a
// multi-cluster controller: it reads its cluster from the context (or with mgr.ClusterFromContext).
func ExampleReconcilerWithClusterInContext() {
	plain := ctrl.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "nginx"}}

	r := mccontext.ReconcilerWithClusterInContext(reconcile.Func(
		func(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
			cluster, _ := mccontext.ClusterFrom(ctx)
			fmt.Printf("reconciling %s in cluster %q\n", req, cluster)
			return ctrl.Result{}, nil
		}))

	_, _ = r.Reconcile(context.TODO(), mcreconcile.Request{Request: plain, ClusterName: "eu-1"})
	// Output:
	// reconciling default/nginx in cluster "eu-1"
}
