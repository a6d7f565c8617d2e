// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package source provides multi-cluster event sources.

A multi-cluster source is a recipe: for every engaged cluster it produces a controller-runtime source for that
cluster (ForCluster), and a multi-cluster controller starts that source when the cluster is engaged and stops it
when the cluster's context ends.

The per-cluster sources produced by Kind register their event handler on the cluster's informer and remove it again
when the cluster's context ends, so a cache that outlives one cluster (for example a cache shared by virtual
clusters) stops delivering its events at once. Deletion tombstones (cache.DeletedFinalStateUnknown) are unwrapped
before predicates and handlers see them.

Main entry points:

  - Kind / TypedKind: watch one object type in every engaged cluster.
  - TypedSyncingSource.WithClusterFilter: only watch clusters a ClusterFilterFunc accepts.
  - TypedSyncingSource.WithProjection: rewrite the watched object per cluster (for example to metadata only).

As in the reference implementation, WithClusterFilter and WithProjection change the source they are called on (a
later call replaces an earlier one) and return it, and ForCluster returns a usable source also for a cluster the
filter rejects, reporting false: a controller does not start it, a program may.
*/
package source
