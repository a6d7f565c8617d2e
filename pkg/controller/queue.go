// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	"sigs.k8s.io/multicluster-runtime/pkg/controller/fairqueue"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// NewFairPriorityQueue returns the default queue of multi-cluster controllers: fairqueue.NewPriority, a priority
// queue like controller-runtime's that is fair across clusters. See package fairqueue for its guarantees.
func NewFairPriorityQueue[request mcreconcile.ClusterAware[request]](controllerName string, rateLimiter workqueue.TypedRateLimiter[request]) workqueue.TypedRateLimitingInterface[request] {
	return fairqueue.NewPriority(controllerName, rateLimiter)
}

// NewFairQueue returns the queue of multi-cluster controllers whose UsePriorityQueue option is false:
// fairqueue.New, fair across clusters and first in first out within each cluster. See package fairqueue for its
// guarantees.
func NewFairQueue[request mcreconcile.ClusterAware[request]](controllerName string, rateLimiter workqueue.TypedRateLimiter[request]) workqueue.TypedRateLimitingInterface[request] {
	return fairqueue.New(controllerName, rateLimiter)
}

// NewFIFOQueue returns controller-runtime's queue without priorities: client-go's rate-limiting work queue, first
// in first out across all clusters. It is not fair: a cluster's backlog delays every other cluster's requests. Set
// a controller's NewQueue option to it to turn fairness off.
func NewFIFOQueue[request comparable](controllerName string, rateLimiter workqueue.TypedRateLimiter[request]) workqueue.TypedRateLimitingInterface[request] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(rateLimiter, workqueue.TypedRateLimitingQueueConfig[request]{
		Name: controllerName,
	})
}

// defaultNewQueue is the queue of controllers whose NewQueue option is not set: NewFairPriorityQueue, fair across
// clusters with priorities within each, unless UsePriorityQueue is false, then NewFairQueue, fair across clusters
// and first in first out within each.
func defaultNewQueue[request mcreconcile.ClusterAware[request]](options controller.TypedOptions[request]) func(string, workqueue.TypedRateLimiter[request]) workqueue.TypedRateLimitingInterface[request] {
	if ptr.Deref(options.UsePriorityQueue, true) {
		return fairqueue.NewPriority[request]
	}
	return fairqueue.New[request]
}
