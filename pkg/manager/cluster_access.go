// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"errors"
	"fmt"

	"net/http"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	mccontext "sigs.k8s.io/multicluster-runtime/pkg/context"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// ErrNoClusterInContext is returned by ClusterFromContext for a context that carries no cluster name.
var ErrNoClusterInContext = errors.New("no cluster name in context")

func (m *mcManager) GetCluster(ctx context.Context, clusterName multicluster.ClusterName) (cluster.Cluster, error) {
	if clusterName == LocalCluster {
		return m.Manager, nil
	}
	if eng := m.engagements.Get(clusterName); eng != nil {
		return eng.Cluster(), nil
	}
	if m.provider == nil {
		return nil, fmt.Errorf("cluster %q: %w", clusterName, multicluster.ErrClusterNotFound)
	}
	return m.provider.Get(ctx, clusterName)
}

func (m *mcManager) ClusterFromContext(ctx context.Context) (cluster.Cluster, error) {
	name, ok := mccontext.ClusterFrom(ctx)
	if !ok {
		return nil, ErrNoClusterInContext
	}
	return m.GetCluster(ctx, name)
}

func (m *mcManager) GetManager(ctx context.Context, clusterName multicluster.ClusterName) (manager.Manager, error) {
	if clusterName == LocalCluster {
		return m.Manager, nil
	}
	cl, err := m.GetCluster(ctx, clusterName)
	if err != nil {
		return nil, err
	}
	return &scopedManager{Manager: m.Manager, cluster: cl}, nil
}

// scopedManager is the host manager with the cluster-facing methods of one cluster of the fleet.
type scopedManager struct {
	manager.Manager
	cluster cluster.Cluster
}

var _ manager.Manager = &scopedManager{}

func (s *scopedManager) GetHTTPClient() *http.Client          { return s.cluster.GetHTTPClient() }
func (s *scopedManager) GetConfig() *rest.Config              { return s.cluster.GetConfig() }
func (s *scopedManager) GetCache() cache.Cache                { return s.cluster.GetCache() }
func (s *scopedManager) GetScheme() *runtime.Scheme           { return s.cluster.GetScheme() }
func (s *scopedManager) GetClient() client.Client             { return s.cluster.GetClient() }
func (s *scopedManager) GetFieldIndexer() client.FieldIndexer { return s.cluster.GetFieldIndexer() }
func (s *scopedManager) GetRESTMapper() meta.RESTMapper       { return s.cluster.GetRESTMapper() }
func (s *scopedManager) GetAPIReader() client.Reader          { return s.cluster.GetAPIReader() }

// GetEventRecorderFor returns the cluster's recorder of the core/v1 events API, so Events land in that cluster.
//
//nolint:staticcheck // SA1019: a manager.Manager must still offer the deprecated recorder; it is the cluster's.
func (s *scopedManager) GetEventRecorderFor(name string) record.EventRecorder {
	return s.cluster.GetEventRecorderFor(name)
}

// GetEventRecorder returns the cluster's recorder of the events.k8s.io/v1 API, so Events land in that cluster.
func (s *scopedManager) GetEventRecorder(name string) recorder.EventRecorder {
	return s.cluster.GetEventRecorder(name)
}

// Start refuses to run: a scoped manager shares the host manager's runnables, so the multi-cluster manager is the
// one to start.
func (s *scopedManager) Start(context.Context) error {
	return errors.New("a manager scoped to one cluster cannot be started: start the multi-cluster manager instead")
}
