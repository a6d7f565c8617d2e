// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package handler_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

var (
	mgr        mcmanager.Manager
	reconciler mcreconcile.Reconciler
)

// This example watches Secrets in every cluster of the fleet and enqueues, for each, a request for a ConfigMap
// of the same name on the host cluster: an event in one cluster makes work for another.
func ExampleEnqueueRequestsFromClusterMapFunc() {
	// snippet:start cross-cluster-map
	err := mcbuilder.ControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}, mcbuilder.WithEngageWithLocalCluster(true), mcbuilder.WithEngageWithProviderClusters(false)).
		Watches(&corev1.Secret{}, mchandler.EnqueueRequestsFromClusterMapFunc(
			func(_ context.Context, clusterName multicluster.ClusterName, obj client.Object) []mcreconcile.Request {
				return []mcreconcile.Request{{
					Request: ctrl.Request{NamespacedName: types.NamespacedName{
						Namespace: clusterName.String(), // one namespace per fleet cluster on the host
						Name:      obj.GetName(),
					}},
					ClusterName: mcmanager.LocalCluster,
				}}
			},
		)).
		Complete(reconciler)
	// snippet:end cross-cluster-map
	if err != nil {
		// handle it
	}
}

// Lift turns any controller-runtime event handler into a multi-cluster one: in each cluster, the requests it
// enqueues carry the cluster's name.
func ExampleLift() {
	lifted := mchandler.Lift(&handler.EnqueueRequestForObject{})

	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[mcreconcile.Request]())
	defer queue.ShutDown()

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nginx"}}
	for _, clusterName := range []multicluster.ClusterName{"eu-1", "us-2"} {
		// The controller builds the handler of each cluster when the cluster is engaged.
		h := lifted(clusterName, nil)
		h.Create(context.TODO(), event.CreateEvent{Object: pod}, queue)
	}

	for queue.Len() > 0 {
		req, _ := queue.Get()
		queue.Done(req)
		fmt.Println(req)
	}
	// Output:
	// cluster://eu-1/default/nginx
	// cluster://us-2/default/nginx
}
