// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package fairqueue provides the work queues of multi-cluster controllers, fair across clusters: the clusters with
pending requests are served round-robin, one request per turn, so a cluster's backlog never holds back another
cluster's requests, and a cluster that had nothing pending waits at most one round.

  - NewPriority: a priority queue like controller-runtime's (pkg/controller/priorityqueue), which the controllers
    of pkg/controller use by default; within a cluster, requests of higher priority go first.
  - New: first in first out within each cluster, without priorities; controllers use it when their
    UsePriorityQueue option is false.

Both keep the semantics of client-go's work queue (deduplication of pending requests, no request handed to two
workers at once, rate-limited and delayed adds, shutdown, the workqueue metrics) and implement ClusterForgetter:
the requests of a disengaged cluster are handed out first, for the controller to drop without reconciling.

Controllers select them through pkg/controller (NewFairPriorityQueue and NewFairQueue there are these
constructors); use this package directly to build a queue for a controller's NewQueue option.
*/
package fairqueue
