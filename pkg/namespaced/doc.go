// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package namespaced provides namespace-scoped clusters: one namespace of a shared cluster presented as a
cluster.Cluster of its own, a virtual cluster, whose client, cache, informers, API reader and event recorders are
scoped to that namespace. Many virtual clusters are views of ONE shared cluster.Cluster: they share its cache, its
informers (one watch per kind) and its client, and run nothing of their own.

The namespace provider (sigs.k8s.io/multicluster-runtime/providers/namespace) makes one virtual cluster per
Namespace; this package is the virtual cluster itself, for providers and tests that scope clusters to namespaces in
other ways.

# Presentation

Inside a virtual cluster, its namespace is presented as "default", so that code written for a real cluster's
default namespace runs unchanged:

  - objects read from its client, cache, informers and API reader carry namespace "default", and so do the
    requests its controllers reconcile (cluster = namespace name, namespace = "default");
  - objects written with namespace "default", or none (for a namespaced kind), land in the real namespace and come
    back showing "default", also when the request fails;
  - a request naming any other namespace is an error naming the virtual cluster and that namespace; nothing is
    read from or written to another namespace;
  - its event recorders create Events in the real namespace, about the real objects.

The real namespace's own name is accepted wherever "default" is. Only metadata.namespace is rewritten; namespaces
named inside an object's spec are passed as they are.

# Cluster-scoped kinds

Kinds the shared cluster's REST mapper reports as cluster-scoped (Namespace, ClusterRole, CRDs, ...) pass through
unchanged: every virtual cluster sees, and may write, the shared cluster's cluster-scoped objects. A virtual
cluster is a namespace-level view, not a security boundary; its GetConfig is the shared cluster's.

# Cost model

Virtual clusters cost only their objects. They share the shared cluster's cache, hence one watch and one store per
kind, and they run nothing: a virtual cluster starts no goroutine, holds no cache and makes no client-go event
handler registration. Each shared informer gets ONE event handler registration, made when the first virtual
cluster adds a handler (see Informer), which routes every event by namespace to the handlers of that namespace.
What remains per virtual cluster is one allocation for the cluster with its client, cache and reader, its scope,
and its entries in the routing tables of the informers it watches; no goroutine.

# Field indexes

Field indexes are registered once on the shared cache, whichever way they arrive (Host.IndexField, a virtual
cluster's field indexer or cache, or, with the namespace provider, Provider.IndexField and the manager's field
indexer) and whenever (before or after the virtual clusters exist).
The cache's index keys include the namespace, so List with MatchingFields through a virtual cluster finds only its
own objects. Registering the same field again on the shared cache is a no-op, never an "indexer conflict". (The
manager's field indexer also registers every index on the host manager's own cache; that half is the manager's.)

Main entry points:

  - NewHost: the host of the virtual clusters of a shared cluster, which the caller starts and keeps running.
  - Host.NewCluster: the virtual cluster of a namespace, a *Cluster, with its Client, Cache and Informer.
  - Host.IndexField: a field index on the shared cache, once for all the virtual clusters.
*/
package namespaced
