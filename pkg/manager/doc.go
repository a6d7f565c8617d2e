// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package manager provides the multi-cluster Manager: a controller-runtime manager of the host cluster (the one the
controller process was configured for) that also knows a fleet of clusters, handed to it by a Provider.

The Manager is multicluster.Aware: a provider engages clusters with it, and it fans every cluster out to each
cluster-aware runnable added with Add (multi-cluster controllers are such runnables), including runnables added
after the cluster was engaged and after the manager started. A cluster stays engaged until the context it was
engaged with ends.

Which clusters the runnables are engaged with is decided by the manager's Coordinator (WithCoordinator): by default
every runnable is engaged with every cluster (package coordinator/basic); the sharded coordinator (package
coordinator/sharded) splits the fleet between the replicas of a controller, fencing each cluster with a Lease so
that only one replica works on it at a time. A custom Coordinator keeps the clusters it is handed in
clusters.Engagements, the engagement bookkeeping the manager, the coordinators and the controllers share; one that
fences the work on a cluster attaches a clusters.WorkGate to the context of each engagement it makes
(clusters.WithWorkGate), and controllers pass every reconcile of that engagement through it.

Reconcilers reach a cluster by name with GetCluster; the name LocalCluster ("") always means the host cluster. With a
nil provider, or one that declares itself multicluster.HostOnly (like the nop provider), the manager runs in
single-cluster mode and controllers built with the multi-cluster builder watch the host cluster only.

Main entry points:

  - New: build a host manager from a rest.Config and wrap it.
  - WithMultiCluster: wrap an existing controller-runtime manager.
  - Manager.GetCluster, Manager.GetManager, Manager.ClusterFromContext: reach a cluster.
  - Manager.Start: starts the host manager and, if the provider is a multicluster.ProviderRunnable, the provider.
  - WithCoordinator: choose which clusters this process engages its runnables with (sharding).
  - FleetReadyzCheck: a readiness check that passes once every engaged cluster has synced for every controller.
*/
package manager
