// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package source

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

var log = logf.Log.WithName("multicluster-source")

// informerRetry is how often a per-cluster source retries getting its informer (for example while the cluster's
// API server is unreachable or a CRD is not installed yet).
var informerRetry = wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Jitter: 0.1, Steps: math.MaxInt32, Cap: 10 * time.Second}

// clusterKind is the source of one cluster produced by Kind. Unlike controller-runtime's Kind, it removes its
// event handler from the informer when the context it was started with ends, and its WaitForSync can be called
// again after a timeout: the source keeps trying until its context ends.
type clusterKind[object client.Object, request comparable] struct {
	clusterName multicluster.ClusterName
	cache       cache.Cache
	obj         object
	handler     handler.TypedEventHandler[object, request]
	predicates  []predicate.TypedPredicate[object]

	startOnce sync.Once
	done      chan struct{} // closed when the handler has synced or starting failed for good
	err       error         // set before done is closed
}

var _ source.TypedSyncingSource[string] = &clusterKind[client.Object, string]{}

// Start registers the event handler on the cluster's informer, in the background. It never blocks.
func (k *clusterKind[object, request]) Start(ctx context.Context, queue workqueue.TypedRateLimitingInterface[request]) error {
	if k.cache == nil {
		return fmt.Errorf("cluster %q: kind source for %T has no cache", k.clusterName, k.obj)
	}
	if k.handler == nil {
		return fmt.Errorf("cluster %q: kind source for %T has no handler", k.clusterName, k.obj)
	}
	started := false
	k.startOnce.Do(func() {
		started = true
		k.done = make(chan struct{})
		go k.run(ctx, queue)
	})
	if !started {
		return fmt.Errorf("cluster %q: kind source for %T started twice", k.clusterName, k.obj)
	}
	return nil
}

func (k *clusterKind[object, request]) run(ctx context.Context, queue workqueue.TypedRateLimitingInterface[request]) {
	defer close(k.done)
	log := log.WithValues("cluster", k.clusterName, "kind", fmt.Sprintf("%T", k.obj))

	var (
		informer cache.Informer
		lastErr  error
	)
	if err := wait.ExponentialBackoffWithContext(ctx, informerRetry, func(ctx context.Context) (bool, error) {
		informer, lastErr = k.cache.GetInformer(ctx, k.obj, cache.BlockUntilSynced(false))
		if lastErr != nil {
			log.Error(lastErr, "Failed to get informer, will retry")
			return false, nil //nolint:nilerr // retried with backoff until the context ends
		}
		return true, nil
	}); err != nil {
		if lastErr == nil {
			lastErr = err
		}
		k.err = fmt.Errorf("cluster %q: getting informer for %T: %w", k.clusterName, k.obj, lastErr)
		return
	}

	registration, err := informer.AddEventHandlerWithOptions(
		&eventHandler[object, request]{ctx: ctx, clusterName: k.clusterName, queue: queue, handler: k.handler, predicates: k.predicates},
		toolscache.HandlerOptions{Logger: &log},
	)
	if err != nil {
		k.err = fmt.Errorf("cluster %q: adding event handler for %T: %w", k.clusterName, k.obj, err)
		return
	}
	// An entry in ctx's list of watchers when ctx is a clusters.WithLifetime, as the controllers' source contexts
	// are. The function keeps only what it needs: the informer, the registration and the source for its log.
	clusters.AfterFunc(ctx, func() { k.removeHandler(informer, registration) })

	if !handlerSynced(ctx, registration) {
		k.err = fmt.Errorf("cluster %q: stopped before the %T cache synced: %w", k.clusterName, k.obj, context.Cause(ctx))
	}
}

// handlerSynced waits until the handler of registration has seen the informer's initial list, and reports whether
// it has; false means ctx ended first. It waits on the registration's HasSyncedChecker, which client-go closes the
// moment the handler has synced, rather than checking HasSynced every 100 ms as WaitForCacheSync does: the source
// is synced (WaitForSync returns, the cluster is no longer unsynced) when its handler is, and the thousand
// goroutines of a fleet's sources that sync together are not woken ten times a second meanwhile. A registration
// without a checker is checked as WaitForCacheSync checks it.
func handlerSynced(ctx context.Context, registration toolscache.ResourceEventHandlerRegistration) bool {
	if registration.HasSynced() {
		return true
	}
	checker := registration.HasSyncedChecker()
	if checker == nil {
		return toolscache.WaitForCacheSync(ctx.Done(), registration.HasSynced)
	}
	select {
	case <-checker.Done():
		return true
	case <-ctx.Done():
		return registration.HasSynced()
	}
}

// removeHandler removes the source's event handler from the informer once the source's context has ended.
func (k *clusterKind[object, request]) removeHandler(informer cache.Informer, registration toolscache.ResourceEventHandlerRegistration) {
	if err := informer.RemoveEventHandler(registration); err != nil {
		log.Error(err, "Failed to remove event handler", "cluster", k.clusterName, "kind", fmt.Sprintf("%T", k.obj))
	}
}

// WaitForSync waits until the source's handler has seen the informer's initial list. When ctx ends first it
// returns an error and leaves the source running, so it can be waited on again.
func (k *clusterKind[object, request]) WaitForSync(ctx context.Context) error {
	if k.done == nil {
		return fmt.Errorf("cluster %q: kind source for %T was not started", k.clusterName, k.obj)
	}
	select {
	case <-k.done:
		return k.err
	case <-ctx.Done():
		return fmt.Errorf("cluster %q: timed out waiting for the %T cache to sync: %w", k.clusterName, k.obj, ctx.Err())
	}
}

func (k *clusterKind[object, request]) String() string {
	return fmt.Sprintf("kind source: %T in cluster %q", k.obj, k.clusterName)
}

// deferredKind is the source Kind returns for a cluster its filter rejects: the cluster's source is built when it
// is first started or waited on, and a failure to build it is returned then.
type deferredKind[object client.Object, request comparable] struct {
	clusterName multicluster.ClusterName
	obj         object
	build       func() (*clusterKind[object, request], error)

	once sync.Once
	src  *clusterKind[object, request]
	err  error
}

var _ source.TypedSyncingSource[string] = &deferredKind[client.Object, string]{}

func (d *deferredKind[object, request]) built() (*clusterKind[object, request], error) {
	d.once.Do(func() { d.src, d.err = d.build() })
	return d.src, d.err
}

// Start builds the cluster's source and starts it.
func (d *deferredKind[object, request]) Start(ctx context.Context, queue workqueue.TypedRateLimitingInterface[request]) error {
	src, err := d.built()
	if err != nil {
		return err
	}
	return src.Start(ctx, queue)
}

// WaitForSync waits for the cluster's source as clusterKind.WaitForSync does.
func (d *deferredKind[object, request]) WaitForSync(ctx context.Context) error {
	src, err := d.built()
	if err != nil {
		return err
	}
	return src.WaitForSync(ctx)
}

func (d *deferredKind[object, request]) String() string {
	return fmt.Sprintf("kind source: %T in cluster %q (rejected by the cluster filter)", d.obj, d.clusterName)
}
