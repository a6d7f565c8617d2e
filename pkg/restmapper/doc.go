// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package restmapper shares discovery and REST mapping between the clusters of a fleet that serve the same APIs.

Every cluster.Cluster maps kinds to resources with a RESTMapper, and by default each builds its own
(controller-runtime's dynamic RESTMapper), loading the whole discovery document of its API server: measured on
Kubernetes v1.37, about 200 KiB of heap per cluster, although most clusters of a fleet serve the same API groups.
A Pool keeps one RESTMapper per distinct discovery document instead (an API surface has two, see Grouping), and
gives every cluster a small RESTMapper of its own that looks up kinds in the shared ones of its groups.

# Grouping

An API server describes its APIs in two aggregated discovery documents: /api for the legacy (core) group, and /apis
for the named groups. A Pool groups and shares each separately, and a cluster discovers each only when a lookup first
needs it: a lookup of a kind of the legacy group (ConfigMap, Secret, Pod) needs /api, one of a named group's kind
(apps Deployment, a CRD) needs /apis. A lookup of a resource without an API group, which may match in any group,
needs both, and looks in both together, the legacy group first, as client-go's RESTMappers do. A controller that
watches legacy kinds only thus asks each cluster for /api alone.

Clusters are grouped by what they actually serve, never by name or URL: the group of a cluster's document is the
SHA-256 digest of the document, as the API server sent it. Two clusters share discovery data only when their API
servers sent identical documents, so a cluster that serves a CRD the others do not is in a named group of its own
and maps that CRD, while it still shares the legacy group's document with the others. A group's RESTMapper is
built once, from the first document of its digest; a cluster joining an existing group decodes nothing. (An API
server without aggregated discovery, older than Kubernetes v1.26, is discovered group by group as client-go does,
once for each document a cluster needs, and grouped by a digest of the result.)

Discovery requests are conditional. Kubernetes API servers send an entity tag with each aggregated discovery
document that is a digest of its content (a SHA-512); a cluster discovered for the first time asks its API server
for a document unless it still has the tag of the group a cluster was last found to serve, and a cluster
rediscovered after a lookup missed asks unless the document still has its own group's tag. An API server that
answers 304 Not Modified serves exactly that document, and the cluster joins that group without downloading or
hashing it: in a fleet of alike clusters, discovering a cluster costs one request with an empty answer for each
document it needs. Only tags that look like such digests (64 or more hexadecimal digits) are ever sent back, since
a tag that is a version number or a timestamp could be the same for different documents on different servers; a
server that sends none, or another kind of tag, is always asked for its documents in full.

# Freshness

A cluster's RESTMapper discovers its API server on its first lookup, as controller-runtime's does: building a
cluster makes no request. When a lookup finds no match (meta.IsNoMatchError), the document the lookup looked in is
fetched again and, if it changed, the cluster moves to the group of its new digest, built if need be, and the lookup
is retried there: a CRD installed later on one cluster becomes mappable on that cluster, and only there, without
restarting anything, while the clusters still serving the old surface keep theirs. Lookups that miss at the same
time share the discovery that starts after them (at most one runs per cluster and document at a time), so a burst
of misses costs one or two fetches, not one each.

# Failures

A discovery that fails (the API server unreachable, a malformed document) fails the lookups of that cluster only,
with an error that is not a no-match error, and is tried again by its next lookup; controller-runtime's sources
retry their informers with backoff, so a cluster whose discovery failed is picked up once its API server answers.
Groups are made only from complete, successfully decoded documents, so a failing cluster never changes what other
clusters map.

# Memory

A Pool holds its groups weakly: a group lives while a cluster's RESTMapper refers to it, and its memory is released
by the garbage collector once the last such cluster is gone (disengaged and no longer referenced). A cluster's own
RESTMapper is a few pointers. The RESTMapper of both documents together, which lookups of resources without an
API group use, is likewise shared by the clusters of the same two groups, and held weakly. Nothing runs in the
background: a Pool starts no goroutine.

# Use

ClusterOption returns a cluster.Option that makes a cluster use the process-wide Pool; the providers of this
repository that build clusters (kubeconfig, file, kind, Cluster API, Cluster Inventory API) apply it to every cluster
they build. It sets cluster.Options.MapperProvider only if no earlier option set one, so a provider's ClusterOptions
can still give clusters a RESTMapper of their own, for example controller-runtime's:

	o.MapperProvider = apiutil.NewDynamicRESTMapper

Programs that build clusters themselves (the clusters provider, tests) add ClusterOption to cluster.New, or use a
Pool of their own with NewPool and Pool.ClusterOption.

Main entry points:

  - ClusterOption and NewMapper: the process-wide Pool, as a cluster.Option or a cluster.Options.MapperProvider.
  - Pool, NewPool: a pool of one's own, and Pool.Groups to see how many distinct discovery documents it holds.
*/
package restmapper
