// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// LocalCluster is the name of the host cluster: the cluster the manager was built for. It is never a provider's
// cluster. It is a multicluster.ClusterName, as in the reference implementation, so LocalCluster.String() and
// LocalCluster.Empty() work; as a typed constant it no longer converts to a plain string implicitly.
const LocalCluster = multicluster.ClusterName("")

// Manager is a controller-runtime manager of the host cluster that also knows a fleet of clusters. It is
// multicluster.Aware: engaging a cluster with it engages the cluster with every cluster-aware runnable it has, now
// and added later.
type Manager interface {
	// Add adds a cluster-aware runnable. It is started with the manager (or at once, if the manager runs) and is
	// engaged with every cluster engaged now and later, for as long as each cluster stays engaged; with a
	// coordinator other than the default (WithCoordinator), with the clusters the coordinator chooses. Runnables
	// that are not cluster-aware are added with GetLocalManager().Add.
	Add(Runnable) error

	// Elected is closed when this manager is elected leader, or immediately if leader election is off.
	Elected() <-chan struct{}

	// AddMetricsServerExtraHandler adds an extra handler to the metrics server of the host manager.
	AddMetricsServerExtraHandler(path string, handler http.Handler) error

	// AddHealthzCheck adds a health check to the host manager.
	AddHealthzCheck(name string, check healthz.Checker) error

	// AddReadyzCheck adds a readiness check to the host manager.
	AddReadyzCheck(name string, check healthz.Checker) error

	// Start starts the provider, if it is a multicluster.ProviderRunnable, and the host manager with all
	// runnables. It blocks until ctx is done or a runnable fails. The provider is started exactly once.
	Start(ctx context.Context) error

	// GetWebhookServer returns the host manager's webhook server.
	GetWebhookServer() webhook.Server

	// GetLogger returns the host manager's logger.
	GetLogger() logr.Logger

	// GetControllerOptions returns the controller options every controller of this manager defaults from.
	GetControllerOptions() config.Controller

	// GetCluster returns the named cluster: the host cluster for LocalCluster, otherwise an engaged cluster or
	// whatever the provider returns. It returns an error matching multicluster.ErrClusterNotFound for names that
	// are not known. An engaged cluster is returned until the context it was engaged with ends.
	GetCluster(ctx context.Context, clusterName multicluster.ClusterName) (cluster.Cluster, error)

	// ClusterFromContext returns the cluster whose name ctx carries (see package
	// sigs.k8s.io/multicluster-runtime/pkg/context).
	ClusterFromContext(ctx context.Context) (cluster.Cluster, error)

	// GetManager returns a controller-runtime manager scoped to the named cluster: its client, cache, field
	// indexer, scheme, REST mapper, API reader and event recorders are the cluster's, while runnables, health
	// checks, webhooks and metrics are the host manager's. For LocalCluster it returns the host manager.
	GetManager(ctx context.Context, clusterName multicluster.ClusterName) (manager.Manager, error)

	// GetLocalManager returns the controller-runtime manager of the host cluster.
	GetLocalManager() manager.Manager

	// GetProvider returns the provider of the fleet; nil in single-cluster mode without a provider.
	GetProvider() multicluster.Provider

	// GetFieldIndexer returns an indexer that registers a field index on the host cluster and, through the
	// provider, on every cluster of the fleet, current and future.
	GetFieldIndexer() client.FieldIndexer

	multicluster.Aware
}

// Options are the options of the host manager.
type Options = manager.Options

// Runnable is a runnable that is also cluster-aware, such as a multi-cluster controller.
type Runnable interface {
	manager.Runnable
	multicluster.Aware
}

// Option configures the multi-cluster side of a manager.
type Option func(*mcManager)

// WithProviderLeaderElection sets whether a multicluster.ProviderRunnable provider runs only on the elected
// leader. The default is true, as for any controller-runtime runnable: replicas that are not leading engage no
// clusters.
func WithProviderLeaderElection(needLeaderElection bool) Option {
	return func(m *mcManager) {
		m.providerNeedsLeaderElection = needLeaderElection
	}
}

// New builds a controller-runtime manager for the host cluster at config and wraps it with WithMultiCluster. A nil
// provider means single-cluster mode.
//
// Unless opts.NewCache is set, the host manager's cache is controller-runtime's (cache.New) with waits that react
// to its informers' sync instead of checking it every 100 ms: an informer asked for once the cache runs is returned
// as soon as it has synced, and an event handler added to a synced informer returns once it has seen the
// informer's objects (waiting at most 100 ms), so that a controller of the host started with the manager, such as
// a provider's, starts its workers as soon as its cache has synced. Everything else is controller-runtime's cache.
func New(config *rest.Config, provider multicluster.Provider, opts manager.Options, mcOpts ...Option) (Manager, error) {
	if opts.NewCache == nil {
		opts.NewCache = syncNotifiedCache(cache.New)
	}
	mgr, err := manager.New(config, opts)
	if err != nil {
		return nil, err
	}
	return WithMultiCluster(mgr, provider, mcOpts...)
}

// WithMultiCluster wraps an existing controller-runtime manager of the host cluster into a multi-cluster manager
// whose fleet comes from provider. A nil provider means single-cluster mode.
func WithMultiCluster(mgr manager.Manager, provider multicluster.Provider, mcOpts ...Option) (Manager, error) {
	m := &mcManager{
		Manager:                     mgr,
		provider:                    provider,
		providerNeedsLeaderElection: true,
		engagements:                 clusters.NewEngagements(disengaged),
	}
	for _, opt := range mcOpts {
		opt(m)
	}
	if m.coordinator == nil {
		m.coordinator = defaultCoordinator()
	}
	if r := m.coordinator.Runnable(); r != nil {
		if err := mgr.Add(r); err != nil {
			return nil, fmt.Errorf("adding the coordinator %T to the manager: %w", m.coordinator, err)
		}
	}
	return m, nil
}

// mcManager implements Manager.
type mcManager struct {
	manager.Manager

	provider                    multicluster.Provider
	providerNeedsLeaderElection bool
	providerOnce                sync.Once

	// coordinator engages the cluster-aware runnables with the clusters it chooses; every engagement and every
	// runnable goes through it.
	coordinator Coordinator

	// engagements are the clusters the provider engaged with the manager, which GetCluster answers.
	engagements *clusters.Engagements[struct{}]

	// mu guards awares; it is never held while calling out.
	mu     sync.RWMutex
	awares []multicluster.Aware
}

var (
	_ Manager         = &mcManager{}
	_ ClusterWorkGate = &mcManager{}
)

func (m *mcManager) GetLocalManager() manager.Manager {
	return m.Manager
}

func (m *mcManager) GetProvider() multicluster.Provider {
	return m.provider
}
