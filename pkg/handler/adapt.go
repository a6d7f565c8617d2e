// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package handler

import (
	"context"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// EventHandler is an event handler of one cluster that enqueues multi-cluster requests.
type EventHandler = handler.TypedEventHandler[client.Object, mcreconcile.Request]

// EventHandlerFunc builds the EventHandler for one engaged cluster, given its name and the cluster.
type EventHandlerFunc = func(multicluster.ClusterName, cluster.Cluster) EventHandler

// TypedEventHandlerFunc builds the event handler for one engaged cluster, given its name and the cluster. It is
// called once for every cluster a source is started for.
type TypedEventHandlerFunc[object client.Object, request mcreconcile.ClusterAware[request]] func(multicluster.ClusterName, cluster.Cluster) handler.TypedEventHandler[object, request]

// queueAdapter wraps an event handler so that the queue it sees is a converted view of the controller's queue.
type queueAdapter[object any, from, to comparable] struct {
	handler handler.TypedEventHandler[object, from]
	build   func(workqueue.TypedRateLimitingInterface[to]) workqueue.TypedRateLimitingInterface[from]
	views   queueViews[from, to]
}

func (a *queueAdapter[object, from, to]) wrap(q workqueue.TypedRateLimitingInterface[to]) workqueue.TypedRateLimitingInterface[from] {
	return a.views.of(q, a.build)
}

func (a *queueAdapter[object, from, to]) Create(ctx context.Context, evt event.TypedCreateEvent[object], q workqueue.TypedRateLimitingInterface[to]) {
	a.handler.Create(ctx, evt, a.wrap(q))
}

func (a *queueAdapter[object, from, to]) Update(ctx context.Context, evt event.TypedUpdateEvent[object], q workqueue.TypedRateLimitingInterface[to]) {
	a.handler.Update(ctx, evt, a.wrap(q))
}

func (a *queueAdapter[object, from, to]) Delete(ctx context.Context, evt event.TypedDeleteEvent[object], q workqueue.TypedRateLimitingInterface[to]) {
	a.handler.Delete(ctx, evt, a.wrap(q))
}

func (a *queueAdapter[object, from, to]) Generic(ctx context.Context, evt event.TypedGenericEvent[object], q workqueue.TypedRateLimitingInterface[to]) {
	a.handler.Generic(ctx, evt, a.wrap(q))
}

// TypedForCluster turns a single-cluster handler into a handler of the named cluster: every reconcile.Request it
// enqueues becomes a multi-cluster request for clusterName.
func TypedForCluster[object client.Object](h handler.TypedEventHandler[object, reconcile.Request], clusterName multicluster.ClusterName) handler.TypedEventHandler[object, mcreconcile.Request] {
	return &clusterHandler[object]{handler: h, clusterName: clusterName}
}

// clusterHandler is the handler of TypedForCluster: one small struct per cluster, with the view of the controller
// queue it was last given.
type clusterHandler[object any] struct {
	handler     handler.TypedEventHandler[object, reconcile.Request]
	clusterName multicluster.ClusterName
	views       queueViews[reconcile.Request, mcreconcile.Request]
}

func (h *clusterHandler[object]) forward(r reconcile.Request) mcreconcile.Request {
	return mcreconcile.Request{Request: r, ClusterName: h.clusterName}
}

func toRequest(r mcreconcile.Request) reconcile.Request { return r.Request }

func (h *clusterHandler[object]) wrap(q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	return h.views.of(q, h.view)
}

// view builds the view of q that the wrapped handler adds to.
func (h *clusterHandler[object]) view(q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	return newMappedQueue(q, h.forward, toRequest)
}

func (h *clusterHandler[object]) Create(ctx context.Context, evt event.TypedCreateEvent[object], q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
	h.handler.Create(ctx, evt, h.wrap(q))
}

func (h *clusterHandler[object]) Update(ctx context.Context, evt event.TypedUpdateEvent[object], q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
	h.handler.Update(ctx, evt, h.wrap(q))
}

func (h *clusterHandler[object]) Delete(ctx context.Context, evt event.TypedDeleteEvent[object], q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
	h.handler.Delete(ctx, evt, h.wrap(q))
}

func (h *clusterHandler[object]) Generic(ctx context.Context, evt event.TypedGenericEvent[object], q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
	h.handler.Generic(ctx, evt, h.wrap(q))
}

// ForCluster turns a single-cluster handler into a handler of the named cluster. See TypedForCluster.
func ForCluster(h handler.EventHandler, clusterName multicluster.ClusterName) EventHandler {
	return TypedForCluster[client.Object](h, clusterName)
}

// TypedLift turns a single-cluster handler into a multi-cluster one: in every cluster, the requests it enqueues
// carry that cluster's name. The same handler instance serves all clusters, so it must not keep per-cluster
// state; build one per cluster with a TypedEventHandlerFunc if it does.
func TypedLift[object client.Object](h handler.TypedEventHandler[object, reconcile.Request]) TypedEventHandlerFunc[object, mcreconcile.Request] {
	return func(clusterName multicluster.ClusterName, _ cluster.Cluster) handler.TypedEventHandler[object, mcreconcile.Request] {
		return TypedForCluster(h, clusterName)
	}
}

// Lift turns a single-cluster handler into a multi-cluster one. See TypedLift.
func Lift(h handler.EventHandler) EventHandlerFunc {
	return TypedLift[client.Object](h)
}

// TypedInjectCluster wraps a handler that already enqueues cluster-aware requests so that, in every cluster, the
// requests it enqueues are stamped with that cluster's name, whatever cluster they named before.
func TypedInjectCluster[object client.Object, request mcreconcile.ClusterAware[request]](h handler.TypedEventHandler[object, request]) TypedEventHandlerFunc[object, request] {
	return func(clusterName multicluster.ClusterName, _ cluster.Cluster) handler.TypedEventHandler[object, request] {
		stamp := func(r request) request { return r.WithCluster(clusterName) }
		keep := func(r request) request { return r }
		return &queueAdapter[object, request, request]{
			handler: h,
			build: func(q workqueue.TypedRateLimitingInterface[request]) workqueue.TypedRateLimitingInterface[request] {
				return newMappedQueue(q, stamp, keep)
			},
		}
	}
}

// WithLowPriorityWhenUnchanged passes controller-runtime's priority-queue hint through a multi-cluster handler:
// in every cluster, create events of the initial list and updates that do not change the object are enqueued with
// low priority when the controller uses a priority queue.
func WithLowPriorityWhenUnchanged[object client.Object, request mcreconcile.ClusterAware[request]](u TypedEventHandlerFunc[object, request]) TypedEventHandlerFunc[object, request] {
	return func(clusterName multicluster.ClusterName, cl cluster.Cluster) handler.TypedEventHandler[object, request] {
		return handler.WithLowPriorityWhenUnchanged(u(clusterName, cl))
	}
}
