// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package reconcile defines the requests and reconcilers of multi-cluster controllers.

A Request is controller-runtime's reconcile.Request plus the name of the cluster the object lives in; a Reconciler
receives it and reaches that cluster with mgr.GetCluster(ctx, req.ClusterName). The empty cluster name is the host
cluster, so a Reconciler written this way also runs unchanged in single-cluster mode.

Main entry points:

  - Request, Reconciler and Func: the untyped forms most controllers use.
  - ClusterAware and WithCluster: the constraint and a generic wrapper for custom request types.
  - NewClusterNotFoundWrapper: turns "the cluster has left the fleet" into success instead of endless retries; the
    multi-cluster builder applies it by default.
*/
package reconcile
