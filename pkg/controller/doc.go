// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package controller provides multi-cluster controllers.

A multi-cluster controller is a controller-runtime controller (one work queue, one set of workers, the usual
options) that is also multicluster.Aware. Its multi-cluster sources, registered with MultiClusterWatch, are started
for every cluster it is engaged with and stopped when that cluster's context ends; sources registered later are
started for the clusters already engaged. Requests carry the name of their cluster.

Guarantees:

  - Engage never blocks: per-cluster sources start and sync in the background, so one cluster's cache never delays
    another cluster or the manager's start.
  - Engaging the same cluster instance twice is a no-op; engaging a new instance under the same name stops the old
    instance's sources before the new ones start.
  - A per-cluster source that does not sync within the controller's CacheSyncTimeout is logged with the cluster's
    name, counted in metrics and restarted with backoff; it never fails the controller or the manager.
  - When a cluster's context ends, its event handlers are removed, its requests still queued are dropped when they
    come up, no reconcile starts for it, and reconciles in flight for it see their context cancelled.
  - The controller's queue is fair across clusters: clusters with pending requests are served round-robin, one
    request per turn, so a cluster's backlog never holds back another cluster's requests. By default it is
    NewFairPriorityQueue, a priority queue like controller-runtime's (the default there since v0.23): within a
    cluster, requests of higher priority go first, so requeues at the priority a reconcile's Result asks for and
    new events come before the low-priority requests of a cache's initial list. Setting UsePriorityQueue to false
    selects NewFairQueue (fair, first in first out within each cluster); both queues live in package fairqueue.
    A NewQueue option wins over both, and NewFIFOQueue, or controller-runtime's priorityqueue.New, turns fairness
    off.
  - Reconcilers find the cluster name in their context (see package sigs.k8s.io/multicluster-runtime/pkg/context)
    and in their logger, under the key "cluster".

Most users build controllers with sigs.k8s.io/multicluster-runtime/pkg/builder instead of this package.
*/
package controller
