// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package fairqueue

import (
	"k8s.io/client-go/util/workqueue"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// New returns a queue that is fair across clusters and first in first out within each cluster, without
// priorities: client-go's rate-limiting work queue (with its deduplication of pending requests, rate-limited
// requeues, delayed adds, the guarantee that no request is handed to two workers at once, and the workqueue
// metrics under controllerName), whose pending requests are served fairly across clusters: each cluster with
// pending requests gets one turn per round, so a cluster with a deep backlog gets its share of the workers, not
// all of them, and a cluster that had nothing pending waits at most one round. Requests of a cluster that has been
// disengaged (ForgetCluster) are handed out first, and the controller drops them without reconciling.
//
// It is the queue of multi-cluster controllers whose UsePriorityQueue option is false. Their default is
// NewPriority, which is as fair across clusters and also honours priorities within each cluster.
func New[request mcreconcile.ClusterAware[request]](controllerName string, rateLimiter workqueue.TypedRateLimiter[request]) workqueue.TypedRateLimitingInterface[request] {
	order := newFairOrder[request]()
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(rateLimiter, workqueue.TypedRateLimitingQueueConfig[request]{
		Name: controllerName,
		DelayingQueue: workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[request]{
			Name: controllerName,
			Queue: workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[request]{
				Name:  controllerName,
				Queue: order,
			}),
		}),
	})
	return &fairQueue[request]{TypedRateLimitingInterface: queue, order: order}
}

// ClusterForgetter is implemented by the queues of this package, which can let go of a cluster's pending requests.
// The controllers of pkg/controller call ForgetCluster when a cluster is disengaged.
type ClusterForgetter interface {
	// ForgetCluster moves the cluster's pending requests to the front of the queue, for the controller to drop
	// them without reconciling, and drops its delayed adds.
	ForgetCluster(clusterName multicluster.ClusterName)
}

// fairQueue is the queue returned by New.
type fairQueue[request mcreconcile.ClusterAware[request]] struct {
	workqueue.TypedRateLimitingInterface[request]
	order *fairOrder[request]
}

// ForgetCluster moves the cluster's pending requests to the front of the queue, to be dropped.
func (q *fairQueue[request]) ForgetCluster(clusterName multicluster.ClusterName) {
	q.order.forgetCluster(clusterName)
}
