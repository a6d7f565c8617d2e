// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespaced

import (
	"context"

	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// Cluster is a virtual cluster: one namespace of the shared cluster, presented as a cluster whose
// namespace "default" is that namespace. It is a view of the shared cluster.Cluster it embeds and owns nothing that
// runs: no cache, no informer, no goroutine.
//
// Its client, cache, informers, API reader and event recorders are scoped to the namespace (see Client,
// Cache, Informer): objects of namespaced kinds read from them carry namespace "default", objects
// written with namespace "default" (or none) land in the real namespace, and naming any other namespace is an
// error. Objects of cluster-scoped kinds are the shared cluster's, unchanged: a virtual cluster sees the shared
// cluster's cluster-scoped objects.
//
// Field indexes registered through GetFieldIndexer or the cache go to the shared cache, once for all virtual
// clusters. GetConfig, GetHTTPClient, GetScheme and GetRESTMapper are the shared cluster's: a client built from
// GetConfig is not scoped.
type Cluster struct {
	cluster.Cluster

	scope *scope
	host  *Host

	// The scoped views are part of the cluster, not allocations of their own: a virtual cluster is one allocation
	// besides its scope.
	client    Client
	cache     Cache
	apiReader namespacedReader
}

var _ cluster.Cluster = &Cluster{}

// Name returns the name of the virtual cluster, which is the name of its namespace in the shared cluster.
func (c *Cluster) Name() string {
	return c.scope.namespace
}

// GetCache returns the virtual cluster's *Cache.
func (c *Cluster) GetCache() cache.Cache {
	return &c.cache
}

// GetClient returns the virtual cluster's *Client. Like the shared cluster's client, it reads from the
// shared cache and writes to the API server.
func (c *Cluster) GetClient() client.Client {
	return &c.client
}

// GetFieldIndexer returns an indexer that registers field indexes on the shared cache, once for all virtual
// clusters; see Host.IndexField.
//
// It has a value receiver, as the reference implementation's (promoted from the embedded cluster.Cluster) has:
// values of Cluster have it too.
func (c Cluster) GetFieldIndexer() client.FieldIndexer {
	return fieldIndexer{host: c.host}
}

// GetEventRecorderFor returns an event recorder whose Events are created in the virtual cluster's real namespace
// and refer to the real object: an object presented with namespace "default" (or none, for a namespaced kind) is
// referred to in the real namespace. Events about cluster-scoped objects are recorded as on the shared cluster.
// An event about an object of another namespace is dropped, and the error is logged with the cluster's name.
//
// Deprecated: use GetEventRecorder, the events.k8s.io/v1 API, as controller-runtime does.
func (c *Cluster) GetEventRecorderFor(name string) record.EventRecorder {
	return &namespacedRecorder{recorder: c.Cluster.GetEventRecorderFor(name), scope: c.scope, log: c.host.log}
}

// GetEventRecorder returns an events.k8s.io/v1 event recorder whose Events are created in the virtual cluster's
// real namespace and refer to the real objects: a regarding or related object presented with namespace "default"
// (or none, for a namespaced kind) is referred to in the real namespace. Events about cluster-scoped objects are
// recorded as on the shared cluster. An event about an object of another namespace is dropped, and the error is
// logged with the cluster's name. The name is the Events' reportingController, as in controller-runtime.
func (c *Cluster) GetEventRecorder(name string) recorder.EventRecorder {
	return &namespacedEventsRecorder{
		recorder: c.Cluster.GetEventRecorder(name),
		refs:     &namespacedRecorder{scope: c.scope, log: c.host.log},
	}
}

// GetAPIReader returns a reader that reads from the shared cluster's API server, scoped and presented like
// Client's reads.
func (c *Cluster) GetAPIReader() client.Reader {
	return &c.apiReader
}

// Start returns nil at once. A virtual cluster has nothing to run: the shared cluster is started by its owner (the
// caller of New), never by a virtual cluster, and starting a virtual cluster costs no goroutine.
func (c *Cluster) Start(context.Context) error {
	return nil
}
