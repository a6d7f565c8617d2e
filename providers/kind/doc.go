// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package kind provides a multicluster.Provider whose clusters are the local kind clusters
(https://kind.sigs.k8s.io): each kind cluster becomes a cluster of the fleet, named by its kind cluster name
("dev" for the cluster created with `kind create cluster --name dev`).

The provider polls kind, every Options.PollInterval (default DefaultPollInterval), through a ClusterLister: by
default kind's own library (sigs.k8s.io/kind/pkg/cluster), which asks the container runtime (docker, podman or
nerdctl, detected as the kind CLI does) for the clusters and reads each cluster's admin kubeconfig from its control
plane node, with the API server address as seen from the host. A new kind cluster is engaged, a deleted one is
disengaged, and a cluster whose kubeconfig changes (deleted and created again under the same name) is replaced.
Only clusters whose name starts with Options.Prefix are considered.

A kind cluster that cannot be listed or read is reported with its name and tried again at the next poll. The
clusters are engaged by a clusters.Engager: one that fails to start, sync or engage is reported with its name and
retried on the engager's backoff (clusters.DefaultRetryDelay, doubling, at most clusters.DefaultMaxRetryDelay), and
never delays the other clusters.

Run the provider either through the manager (mcmanager.New starts a provider that is a
multicluster.ProviderRunnable with the manager) or with Run, or both, as in:

	provider := kind.New()
	mgr, err := mcmanager.New(ctrl.GetConfigOrDie(), provider, manager.Options{})
	...
	go provider.Run(ctx, mgr)
	err = mgr.Start(ctx)

Discovery runs once however it is started: the first of Start and Run runs it, the other waits for its own
context to end and returns nil.

Requirements: a container runtime CLI on PATH that reaches the runtime hosting the kind clusters, and the kind
clusters' API servers reachable from the controller (the host address kind publishes). No RBAC is needed on the host
cluster; in each kind cluster the provider uses the cluster's admin kubeconfig.

Main entry points:

  - New and Options: build the provider (Prefix, PollInterval, ClusterOptions, RESTOptions, Lister).
  - Provider.Start, Provider.Run: discover clusters until the context ends.
  - ClusterLister: the seam to list clusters and read their kubeconfigs, with kind's library as the default.
*/
package kind
