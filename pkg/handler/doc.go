// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package handler provides cluster-aware event handlers for multi-cluster controllers.

A multi-cluster handler is built per cluster: a TypedEventHandlerFunc receives the name and the cluster.Cluster of
each engaged cluster and returns a controller-runtime event handler for that cluster, which enqueues requests that
carry the cluster's name. This keeps every controller-runtime handler usable: Lift and ForCluster turn a
single-cluster handler into a cluster-aware one.

Main entry points:

  - EnqueueRequestForObject / TypedEnqueueRequestForObject: enqueue the object itself, in the cluster it came from.
  - EnqueueRequestForOwner / TypedEnqueueRequestForOwner: enqueue the owner, in the same cluster, using that
    cluster's scheme and REST mapper.
  - EnqueueRequestsFromMapFunc / TypedEnqueueRequestsFromMapFunc: map an event to requests in the event's cluster.
  - TypedEnqueueRequestsFromClusterMapFunc and TypedEnqueueRequestsFromMapFuncWithClusterPreservation: map an event
    in one cluster to requests for other clusters (cross-cluster watches).
  - Lift, TypedLift, ForCluster, TypedForCluster, TypedInjectCluster: adapt existing handlers.
  - WithLowPriorityWhenUnchanged: pass controller-runtime's priority-queue hint through.
*/
package handler
