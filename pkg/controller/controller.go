// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	mcsource "sigs.k8s.io/multicluster-runtime/pkg/source"
)

// Controller is a multi-cluster controller of multi-cluster requests.
type Controller = TypedController[mcreconcile.Request]

// Options are the options of a multi-cluster controller: controller-runtime's controller options over
// multi-cluster requests. CacheSyncTimeout bounds each wait for a per-cluster source to sync (default two
// minutes, as in controller-runtime); a source that misses it is restarted with backoff. Unless NewQueue is set,
// the queue is fair across clusters: NewFairPriorityQueue (priorities within each cluster), or NewFairQueue (first
// in, first out within each cluster) when UsePriorityQueue is false.
type Options = controller.TypedOptions[mcreconcile.Request]

// TypedController is a controller-runtime controller that is also cluster-aware.
type TypedController[request mcreconcile.ClusterAware[request]] interface {
	controller.TypedController[request]
	multicluster.Aware

	// MultiClusterWatch registers a multi-cluster source: it is started for every cluster engaged now and later.
	// Sources of clusters engaged before the controller starts are started when it starts.
	MultiClusterWatch(src mcsource.TypedSource[client.Object, request]) error
}

// New returns a multi-cluster controller registered with the manager. See NewTypedUnmanaged.
func New(name string, mgr mcmanager.Manager, options Options) (Controller, error) {
	return NewTyped(name, mgr, options)
}

// NewTyped returns a multi-cluster controller registered with the manager: it starts with the manager and is
// engaged with every cluster the manager engages. See NewTypedUnmanaged.
func NewTyped[request mcreconcile.ClusterAware[request]](name string, mgr mcmanager.Manager, options controller.TypedOptions[request]) (TypedController[request], error) {
	c, err := NewTypedUnmanaged(name, mgr, options)
	if err != nil {
		return nil, err
	}
	if err := mgr.Add(c); err != nil {
		return nil, fmt.Errorf("adding controller %q to the manager: %w", name, err)
	}
	return c, nil
}

// NewUnmanaged returns a multi-cluster controller that is not registered with the manager. See NewTypedUnmanaged.
func NewUnmanaged(name string, mgr mcmanager.Manager, options Options) (Controller, error) {
	return NewTypedUnmanaged(name, mgr, options)
}

// NewTypedUnmanaged returns a multi-cluster controller that is not registered with the manager; the caller starts
// it and engages clusters with it (for example with mgr.Add). Options default from the manager's controller
// options, as controller-runtime's do, so SkipNameValidation, MaxConcurrentReconciles, RecoverPanic,
// NeedLeaderElection, CacheSyncTimeout and the other manager-wide settings apply.
func NewTypedUnmanaged[request mcreconcile.ClusterAware[request]](name string, mgr mcmanager.Manager, options controller.TypedOptions[request]) (TypedController[request], error) {
	if options.Reconciler == nil {
		return nil, fmt.Errorf("controller %q: must specify Reconciler", name)
	}
	options.DefaultFromConfig(mgr.GetControllerOptions())
	if options.Logger.GetSink() == nil {
		options.Logger = mgr.GetLogger()
	}
	if options.CacheSyncTimeout <= 0 {
		options.CacheSyncTimeout = 2 * time.Minute
	}
	if options.LogConstructor == nil {
		options.LogConstructor = defaultLogConstructor[request](options.Logger, name)
	}
	if options.NewQueue == nil {
		options.NewQueue = defaultNewQueue[request](options)
	}

	c := &mcController[request]{
		name:             name,
		mgr:              mgr,
		do:               options.Reconciler,
		cacheSyncTimeout: options.CacheSyncTimeout,
		log:              options.Logger.WithValues("controller", name),
		warmup:           options.EnableWarmup != nil && *options.EnableWarmup,
	}
	c.engagements = clusters.NewEngagements(c.disengaged)
	if gate, ok := mgr.(mcmanager.ClusterWorkGate); ok {
		c.gate = gate
	}
	newQueue := options.NewQueue
	options.NewQueue = func(controllerName string, rateLimiter workqueue.TypedRateLimiter[request]) workqueue.TypedRateLimitingInterface[request] {
		q := newQueue(controllerName, rateLimiter)
		c.queueCreated(q)
		return q
	}
	options.Reconciler = c.reconcilerFor()

	inner, err := controller.NewTypedUnmanaged(name, options)
	if err != nil {
		return nil, err
	}
	c.TypedController = inner
	return c, nil
}

// defaultLogConstructor logs the controller's name and, for a request, its cluster and object.
func defaultLogConstructor[request mcreconcile.ClusterAware[request]](base logr.Logger, name string) func(*request) logr.Logger {
	log := base.WithValues("controller", name)
	return func(req *request) logr.Logger {
		if req == nil {
			return log
		}
		l := log.WithValues("cluster", (*req).Cluster())
		if r, ok := any(*req).(mcreconcile.Request); ok {
			return l.WithValues("namespace", r.Namespace, "name", r.Name)
		}
		return l.WithValues("request", (*req).String())
	}
}

// mcController implements TypedController by wrapping a controller-runtime controller: the inner controller owns
// the queue and the workers, this type owns the clusters and their sources.
type mcController[request mcreconcile.ClusterAware[request]] struct {
	controller.TypedController[request]

	name             string
	mgr              mcmanager.Manager
	do               reconcile.TypedReconciler[request]
	cacheSyncTimeout time.Duration
	log              logr.Logger
	// warmup is the EnableWarmup option: the controller's sources start in Warmup, before leader election is won.
	warmup bool
	// gate is the manager's: it fences the requests of fleet clusters the controller is not engaged with (the
	// engagements carry their own gate).
	gate mcmanager.ClusterWorkGate

	// engagements are the clusters engaged with the controller; their states (Value) are guarded by mu.
	engagements *clusters.Engagements[clusterWork[request]]

	mu      sync.Mutex
	runCtx  context.Context                               // the context the controller runs with; nil before it starts
	runDone <-chan struct{}                               // runCtx.Done(), nil before it starts
	queue   workqueue.TypedRateLimitingInterface[request] // nil before the controller starts
	sources []mcsource.TypedSource[client.Object, request]
}
