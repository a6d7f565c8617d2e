// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package handler

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// EnqueueRequestForObject is the handler of the named cluster that enqueues a request for the object of every
// event, stamped with the cluster's name. It has the shape of an EventHandlerFunc, so it can be passed as one.
func EnqueueRequestForObject(clusterName multicluster.ClusterName, cl cluster.Cluster) handler.TypedEventHandler[client.Object, mcreconcile.Request] {
	return TypedEnqueueRequestForObject[client.Object]()(clusterName, cl)
}

// TypedEnqueueRequestForObject enqueues, in every cluster, a request for the object of every event, stamped with
// the cluster the event came from. Create events of the initial list are enqueued with low priority when the
// controller uses a priority queue, as controller-runtime's handler does.
func TypedEnqueueRequestForObject[object client.Object]() TypedEventHandlerFunc[object, mcreconcile.Request] {
	return TypedLift[object](&handler.TypedEnqueueRequestForObject[object]{})
}

// EnqueueRequestForOwner enqueues, in every cluster, a request for the owner of the event's object in the same
// cluster. ownerType and opts are those of controller-runtime's handler.EnqueueRequestForOwner; the owner's kind is
// resolved with each cluster's own scheme and REST mapper.
func EnqueueRequestForOwner(ownerType client.Object, opts ...handler.OwnerOption) EventHandlerFunc {
	return TypedEnqueueRequestForOwner[client.Object](ownerType, opts...)
}

// TypedEnqueueRequestForOwner enqueues, in every cluster, a request for the owner of the event's object in the
// same cluster. See EnqueueRequestForOwner.
func TypedEnqueueRequestForOwner[object client.Object](ownerType client.Object, opts ...handler.OwnerOption) TypedEventHandlerFunc[object, mcreconcile.Request] {
	return func(clusterName multicluster.ClusterName, cl cluster.Cluster) handler.TypedEventHandler[object, mcreconcile.Request] {
		h := handler.TypedEnqueueRequestForOwner[object](cl.GetScheme(), cl.GetRESTMapper(), ownerType, opts...)
		return TypedForCluster(h, clusterName)
	}
}

// EnqueueRequestsFromMapFunc enqueues, in every cluster, the requests fn maps an event's object to, each in the
// cluster the event came from.
func EnqueueRequestsFromMapFunc(fn handler.MapFunc) EventHandlerFunc {
	return TypedLift[client.Object](handler.EnqueueRequestsFromMapFunc(fn))
}

// TypedEnqueueRequestsFromMapFunc enqueues, in every cluster, the requests fn maps an event's object to. Every
// request is stamped with the cluster the event came from, whatever cluster fn set; to enqueue requests for other
// clusters use TypedEnqueueRequestsFromClusterMapFunc.
func TypedEnqueueRequestsFromMapFunc[object client.Object, request mcreconcile.ClusterAware[request]](fn handler.TypedMapFunc[object, request]) TypedEventHandlerFunc[object, request] {
	return TypedInjectCluster(handler.TypedEnqueueRequestsFromMapFunc(fn))
}

// TypedEnqueueRequestsFromMapFuncWithClusterPreservation enqueues the requests fn maps an event's object to, with
// the clusters fn set on them left as they are: it is how an event in one cluster enqueues work for another. A
// request without a cluster name is for the host cluster.
func TypedEnqueueRequestsFromMapFuncWithClusterPreservation[object client.Object, request mcreconcile.ClusterAware[request]](fn handler.TypedMapFunc[object, request]) handler.TypedEventHandler[object, request] {
	return handler.TypedEnqueueRequestsFromMapFunc(fn)
}

// TypedClusterMapFunc maps an event's object, seen in the named cluster, to requests for any clusters.
type TypedClusterMapFunc[object client.Object, request mcreconcile.ClusterAware[request]] func(ctx context.Context, clusterName multicluster.ClusterName, obj object) []request

// ClusterMapFunc maps an event's object, seen in the named cluster, to multi-cluster requests.
type ClusterMapFunc = TypedClusterMapFunc[client.Object, mcreconcile.Request]

// EnqueueRequestsFromClusterMapFunc enqueues the requests fn returns for an event in any cluster, each for the
// cluster fn names in it. See TypedEnqueueRequestsFromClusterMapFunc.
func EnqueueRequestsFromClusterMapFunc(fn ClusterMapFunc) EventHandlerFunc {
	return TypedEnqueueRequestsFromClusterMapFunc(fn)
}

// TypedEnqueueRequestsFromClusterMapFunc enqueues the requests fn returns for an event in any cluster. fn learns
// which cluster the event came from and names the cluster of every request itself, so an event in cluster A can
// enqueue work for cluster B (or for the host cluster, with the empty name).
func TypedEnqueueRequestsFromClusterMapFunc[object client.Object, request mcreconcile.ClusterAware[request]](fn TypedClusterMapFunc[object, request]) TypedEventHandlerFunc[object, request] {
	return func(clusterName multicluster.ClusterName, _ cluster.Cluster) handler.TypedEventHandler[object, request] {
		return handler.TypedEnqueueRequestsFromMapFunc(func(ctx context.Context, obj object) []request {
			return fn(ctx, clusterName, obj)
		})
	}
}
