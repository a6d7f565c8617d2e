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
cluster adds a handler (see ScopedInformer), which routes every event by namespace to the handlers of that
namespace. What remains per virtual cluster is a few small structs and its context, and no goroutine. With 1,000
namespaces of one ConfigMap each and a controller watching ConfigMaps, `make bench` measures about 5.8 KiB of heap
per namespace, objects included, against 3.5 KiB for one controller-runtime Manager watching all of them; of the
difference, under 1 KiB is the provider's own (its virtual cluster, context and route) and the rest the manager's and
the controller's bookkeeping of an engaged cluster. The virtual cluster's context is a clusters.WithLifetime, which
the manager, the coordinator, the controller and its source watch through entries in one list rather than contexts
and context.AfterFunc registrations of their own (docs/performance.md; TestScale, run with MCR_SCALE=1, measures the
same).

# Field indexes

Field indexes are registered once on the shared cache, whichever way they arrive (Provider.IndexField, a virtual
cluster's field indexer or cache, the manager's field indexer) and whenever (before or after namespaces appear).
The cache's index keys include the namespace, so List with MatchingFields through a virtual cluster finds only its
own objects. Registering the same field again on the shared cache is a no-op, never an "indexer conflict". (The
manager's field indexer also registers every index on the host manager's own cache; that half is the manager's.)

Main entry points:

  - New and Provider: the provider, to pass to the multi-cluster manager.
  - NamespacedCluster: a virtual cluster, with NamespacedClient, NamespacedCache and ScopedInformer.
*/
package namespace
