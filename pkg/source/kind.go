// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package source

import (
	"fmt"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// ClusterFilterFunc decides whether a source watches the named cluster.
type ClusterFilterFunc func(clusterName multicluster.ClusterName, cluster cluster.Cluster) bool

// Source is a multi-cluster source of multi-cluster requests.
type Source = TypedSource[client.Object, mcreconcile.Request]

// TypedSource is a multi-cluster source: it produces a controller-runtime source for each engaged cluster.
type TypedSource[object client.Object, request mcreconcile.ClusterAware[request]] interface {
	// ForCluster returns the source of the named cluster. The boolean is false when the source does not watch
	// this cluster (for example because of a cluster filter): a controller does not start the source then. The
	// sources of Kind are usable all the same, as the reference implementation's are, so that a program that
	// watches a cluster regardless of the filter (as its builder does for the host cluster) may start them.
	ForCluster(multicluster.ClusterName, cluster.Cluster) (source.TypedSource[request], bool, error)
}

// SyncingSource is a multi-cluster source whose per-cluster sources can be waited on until their caches sync.
type SyncingSource[object client.Object] TypedSyncingSource[object, mcreconcile.Request]

// TypedSyncingSource is a multi-cluster source whose per-cluster sources can be waited on until their caches sync.
// WithProjection and WithClusterFilter change the source they are called on and return it, as the reference
// implementation's do: calling them for their effect and ignoring the result is fine. Set them before the source
// is handed to a controller; the per-cluster sources already built keep what they were built with.
type TypedSyncingSource[object client.Object, request mcreconcile.ClusterAware[request]] interface {
	TypedSource[object, request]

	// SyncingForCluster is ForCluster returning a syncing source.
	SyncingForCluster(multicluster.ClusterName, cluster.Cluster) (source.TypedSyncingSource[request], bool, error)

	// WithProjection makes the source watch, in each cluster, the object the projection returns for that cluster
	// instead of the source's object (for example its metadata-only form). A later projection replaces an earlier
	// one; nil removes it. It returns the source.
	WithProjection(func(cluster.Cluster, object) (object, error)) TypedSyncingSource[object, request]

	// WithClusterFilter makes the source watch only the clusters the filter accepts: ForCluster reports false for
	// the others. A later filter replaces an earlier one; nil removes it. It returns the source.
	WithClusterFilter(ClusterFilterFunc) TypedSyncingSource[object, request]
}

// Kind watches objects of obj's type in every engaged cluster and hands their events, filtered by predicates, to
// the handler built for the cluster.
func Kind[object client.Object](
	obj object,
	handler mchandler.TypedEventHandlerFunc[object, mcreconcile.Request],
	predicates ...predicate.TypedPredicate[object],
) SyncingSource[object] {
	return TypedKind(obj, handler, predicates...)
}

// TypedKind watches objects of obj's type in every engaged cluster and hands their events, filtered by
// predicates, to the handler built for the cluster. See Kind.
func TypedKind[object client.Object, request mcreconcile.ClusterAware[request]](
	obj object,
	handler mchandler.TypedEventHandlerFunc[object, request],
	predicates ...predicate.TypedPredicate[object],
) TypedSyncingSource[object, request] {
	return &kind[object, request]{obj: obj, handler: handler, predicates: predicates}
}

// kind is the multi-cluster Kind source.
type kind[object client.Object, request mcreconcile.ClusterAware[request]] struct {
	obj        object
	handler    mchandler.TypedEventHandlerFunc[object, request]
	predicates []predicate.TypedPredicate[object]

	// mu guards the settings below, which WithProjection and WithClusterFilter change in place while a
	// controller may be building per-cluster sources.
	mu      sync.RWMutex
	project func(cluster.Cluster, object) (object, error)
	filter  ClusterFilterFunc
}

func (k *kind[object, request]) ForCluster(name multicluster.ClusterName, cl cluster.Cluster) (source.TypedSource[request], bool, error) {
	src, ok, err := k.SyncingForCluster(name, cl)
	if err != nil {
		return nil, false, err
	}
	return src, ok, nil
}

// SyncingForCluster returns a usable source also for a cluster the filter rejects; that one is built only when it
// is started, so a controller, which does not start it, never pays for it or sees its errors.
func (k *kind[object, request]) SyncingForCluster(name multicluster.ClusterName, cl cluster.Cluster) (source.TypedSyncingSource[request], bool, error) {
	k.mu.RLock()
	project, filter := k.project, k.filter
	k.mu.RUnlock()

	if filter != nil && !filter(name, cl) {
		return &deferredKind[object, request]{clusterName: name, obj: k.obj, build: func() (*clusterKind[object, request], error) {
			return k.build(name, cl, project)
		}}, false, nil
	}
	src, err := k.build(name, cl, project)
	if err != nil {
		return nil, false, err
	}
	return src, true, nil
}

// build builds the source of one cluster.
func (k *kind[object, request]) build(
	name multicluster.ClusterName, cl cluster.Cluster, project func(cluster.Cluster, object) (object, error),
) (*clusterKind[object, request], error) {
	// Every cluster's source only reads the watched object (for its type), so they share it; only a projection,
	// which may change the object it is given, gets a copy of its own.
	obj := k.obj
	if project != nil {
		copied, ok := k.obj.DeepCopyObject().(object)
		if !ok {
			return nil, fmt.Errorf("cluster %q: cannot copy watched object of type %T", name, k.obj)
		}
		projected, err := project(cl, copied)
		if err != nil {
			return nil, fmt.Errorf("cluster %q: projecting watched object of type %T: %w", name, k.obj, err)
		}
		obj = projected
	}
	h, err := buildHandler(k.handler, name, cl)
	if err != nil {
		return nil, err
	}
	return &clusterKind[object, request]{
		clusterName: name,
		cache:       cl.GetCache(),
		obj:         obj,
		handler:     h,
		predicates:  k.predicates,
	}, nil
}

// buildHandler builds the cluster's event handler. Some controller-runtime handlers panic on bad input at
// construction (for example an owner type the cluster's scheme does not know); with clusters joining at run time
// that must become an error naming the cluster, not a crash.
func buildHandler[object client.Object, request mcreconcile.ClusterAware[request]](
	build mchandler.TypedEventHandlerFunc[object, request], name multicluster.ClusterName, cl cluster.Cluster,
) (h handler.TypedEventHandler[object, request], err error) {
	defer func() {
		if r := recover(); r != nil {
			h, err = nil, fmt.Errorf("cluster %q: building event handler: %v", name, r)
		}
	}()
	if build == nil {
		return nil, fmt.Errorf("cluster %q: no event handler", name)
	}
	return build(name, cl), nil
}

func (k *kind[object, request]) WithProjection(project func(cluster.Cluster, object) (object, error)) TypedSyncingSource[object, request] {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.project = project
	return k
}

func (k *kind[object, request]) WithClusterFilter(filter ClusterFilterFunc) TypedSyncingSource[object, request] {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.filter = filter
	return k
}

func (k *kind[object, request]) String() string {
	return fmt.Sprintf("multi-cluster kind source: %T", k.obj)
}
