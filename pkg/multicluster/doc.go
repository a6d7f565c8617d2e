/*
Package multicluster holds the contract between the parts of multicluster-runtime: how a cluster source (a
Provider) hands clusters to the components that act on them (anything Aware, such as the manager and its
controllers).

The lifetime of one cluster is the context passed to Aware.Engage: everything started for the cluster hangs off it,
and cancelling it is the one way to disengage the cluster.

Main entry points:

  - Provider: the interface every cluster source implements (Get and IndexField).
  - ProviderRunnable: optional; a provider with a discovery loop, started by the manager.
  - Aware: implemented by the manager and by multi-cluster controllers; Engage hands them a cluster.
  - ErrClusterNotFound: returned by Get for names the provider does not know.
*/
package multicluster
