// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package namespace provides a provider whose clusters are the Namespaces of one cluster: every Namespace is a
virtual cluster named after it, and all of them are backed by ONE shared cluster.Cluster. It lets a multi-cluster
controller run against many "clusters" on a single API server, for development, tests and multi-tenant setups
where a tenant is a namespace.

# Discovery

New takes the shared cluster; the caller starts it and keeps it running (the provider never starts it). Provider.Start,
called by the multi-cluster manager, watches the shared cluster's Namespaces through its cache. A Namespace that
exists or is created becomes a NamespacedCluster, retrievable with Provider.Get at once and then engaged with the
manager under the namespace's name; virtual clusters are engaged concurrently. It stays engaged while the Namespace
exists, Terminating included, so that controllers can still remove finalizers from the objects in it; when the
Namespace object is deleted, the virtual cluster's context is cancelled, which disengages it everywhere.

# The virtual clusters

A virtual cluster is a namespace-scoped cluster of package sigs.k8s.io/multicluster-runtime/pkg/namespaced
(NamespacedCluster and the other names of this package below are aliases of its types): its namespace is presented
as "default", cluster-scoped kinds pass through, it runs nothing and holds no cache, and field indexes go to the
shared cache once. That package's documentation says how. The provider's own cost per virtual cluster is its
record of the namespace and the virtual cluster's context: with 1,000 namespaces of one ConfigMap each and a
controller watching ConfigMaps, `make bench` measures about 5.8 KiB of heap per namespace, objects included,
against 3.5 KiB for one controller-runtime Manager watching all of them; of the difference, under 1 KiB is the
provider's own (its virtual cluster, context and route) and the rest the manager's and the controller's
bookkeeping of an engaged cluster. The virtual cluster's context is a clusters.WithLifetime, which the manager, the
coordinator, the controller and its source watch through entries in one list rather than contexts and
context.AfterFunc registrations of their own (docs/performance.md; TestScale, run with MCR_SCALE=1, measures the
same).

Main entry points:

  - New and Provider: the provider, to pass to the multi-cluster manager; Provider.ClusterNames lists the virtual
    clusters.
  - NamespacedCluster: a virtual cluster, with NamespacedClient, NamespacedCache and ScopedInformer (aliases of
    namespaced.Cluster, namespaced.Client, namespaced.Cache and namespaced.Informer).
*/
package namespace
