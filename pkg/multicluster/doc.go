// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package multicluster holds the contract between the parts of multicluster-runtime: how a cluster source (a
Provider) hands clusters to the components that act on them (anything Aware, such as the manager and its
controllers).

The lifetime of one cluster is the context passed to Aware.Engage: everything started for the cluster hangs off it,
and cancelling it is the one way to disengage the cluster.

Main entry points:

  - Provider: the interface every cluster source implements (Get and IndexField).
  - ProviderRunnable: optional; a provider with a discovery loop, started by the manager.
  - ClusterLister: the names of the clusters a provider has engaged; every provider of this repository has it.
  - Aware: implemented by the manager and by multi-cluster controllers; Engage hands them a cluster.
  - ErrClusterNotFound: returned by Get for names the provider does not know.

# The provider convention

Every provider of this repository follows these rules, and a provider written elsewhere should too:

  - It is a Provider and a ClusterLister (ClusterNames). A provider whose API had another name for the lister keeps
    it as an alias (the kubeconfig and Cluster API providers' ListClusters).
  - How it starts: a provider that engages clusters is a ProviderRunnable, and the manager starts it (mcmanager.New
    with the provider; never start it by hand). Start(ctx, aware) engages clusters with aware, in contexts derived
    from ctx, and blocks until ctx ends; then every cluster it engaged is stopped. Clusters discovered before Start
    are engaged when it runs.
  - A provider that needs the host manager (its cache, or a controller on it, to watch the objects that describe
    its clusters) says so by having SetupWithManager(mgr mcmanager.Manager) error — with a leading
    context.Context where its released API had one (the kubeconfig provider's, which only bounds the setup). Call it
    once, before the manager starts. It registers the provider's watches on mgr.GetLocalManager() and engages
    nothing: engaging is Start's, like for every other provider. The kubeconfig, Cluster API and
    cluster-inventory-api providers are such providers.
  - Options: a provider is configured by an Options struct whose zero value is valid. Every default is documented
    on its field and applied in one place, a complete() step that New calls. Options that cannot work are an error
    of New, or, where they depend on the host manager, of SetupWithManager.
  - A provider that discovers clusters from a source (files, Secrets, Cluster API objects, ClusterProfiles, kind,
    or a source of one's own) is built on clusters.Engager, which builds the clusters with clusters.NewCluster,
    engages, replaces, retries and stops them, and reports what happens; the provider keeps only what is specific to
    its source.
*/
package multicluster
