// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespaced

import (
	"sync"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
)

// Host is a cluster whose namespaces are presented as clusters of their own: what all its namespace-scoped
// clusters share, namely the shared cluster itself, the multiplexers of its informers (one event handler
// registration per informer, routing by namespace) and the field indexes registered on its cache. Create it with
// NewHost; it is safe for concurrent use.
type Host struct {
	cluster cluster.Cluster
	log     logr.Logger
	muxes   muxRegistry

	indexMu sync.Mutex
	indexes map[indexKey]struct{}
}

// NewHost returns the host of the namespace-scoped clusters of shared. The caller starts shared and keeps it
// running while its namespace-scoped clusters are used: a Host, and its clusters, never start it. log receives the
// errors that cannot be returned to a caller (an event about an object of another namespace, which is dropped),
// each naming its cluster.
func NewHost(shared cluster.Cluster, log logr.Logger) *Host {
	return &Host{cluster: shared, log: log}
}

// NewCluster returns the namespace-scoped cluster of namespace: a view of the shared cluster that runs nothing and
// holds no cache of its own. Clusters of the same namespace are interchangeable; each call returns a new one.
func (h *Host) NewCluster(namespace string) *Cluster {
	s := &scope{namespace: namespace, scheme: h.cluster.GetScheme(), mapper: h.cluster.GetRESTMapper()}
	return &Cluster{
		Cluster:   h.cluster,
		scope:     s,
		host:      h,
		client:    Client{Client: h.cluster.GetClient(), scope: s},
		cache:     Cache{Cache: h.cluster.GetCache(), scope: s, host: h},
		apiReader: namespacedReader{reader: h.cluster.GetAPIReader(), scope: s},
	}
}
