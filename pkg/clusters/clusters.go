// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/internal/metrics"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// DefaultWaitCacheTimeout is how long Add waits for a new cluster's cache to sync when WaitCacheTimeout is unset.
const DefaultWaitCacheTimeout = 2 * time.Minute

// Clusters is a set of named clusters for a provider to embed. The zero value is not usable; create it with New.
// All methods are safe for concurrent use.
type Clusters[T cluster.Cluster] struct {
	// ErrorHandler receives errors that cannot be returned to a caller, such as a cluster's Start failing after it
	// was engaged, with key/value pairs naming the cluster. By default they are logged.
	ErrorHandler func(error, string, ...any)

	// EqualClusters decides whether AddOrReplace finds nothing to replace. By default it is the package function
	// EqualClusters, which compares the clusters' rest.Configs.
	EqualClusters func(a, b T) bool

	// WaitCacheTimeout bounds how long Add and AddOrReplace wait for a new cluster's cache to sync. Zero means
	// DefaultWaitCacheTimeout.
	WaitCacheTimeout time.Duration

	lock     sync.RWMutex
	clusters map[multicluster.ClusterName]*entry[T]
	indexers []Index
}

// entry is one cluster with the cancel function of its context.
type entry[T cluster.Cluster] struct {
	cluster T
	ctx     context.Context
	cancel  context.CancelFunc

	// indexMu serialises index registration on this cluster; indexed counts the recorded indexes (a prefix of
	// Clusters.indexers, which only grows) registered on it so far, so that no index is registered twice.
	indexMu sync.Mutex
	indexed int
}

// Index is a field index recorded by IndexField, re-applied to every cluster added later.
type Index struct {
	Object    client.Object
	Field     string
	Extractor client.IndexerFunc
}

// New returns an empty set of clusters.
func New[T cluster.Cluster]() Clusters[T] {
	return Clusters[T]{
		clusters: map[multicluster.ClusterName]*entry[T]{},
	}
}

// ClusterNames returns the names of the clusters, sorted.
func (c *Clusters[T]) ClusterNames() []multicluster.ClusterName {
	c.lock.RLock()
	defer c.lock.RUnlock()
	names := make([]multicluster.ClusterName, 0, len(c.clusters))
	for name := range c.clusters {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Get returns the named cluster, or an error matching multicluster.ErrClusterNotFound.
func (c *Clusters[T]) Get(ctx context.Context, clusterName multicluster.ClusterName) (cluster.Cluster, error) {
	cl, err := c.GetTyped(ctx, clusterName)
	if err != nil {
		return nil, err
	}
	return cl, nil
}

// GetTyped returns the named cluster as its own type, or an error matching multicluster.ErrClusterNotFound.
func (c *Clusters[T]) GetTyped(_ context.Context, clusterName multicluster.ClusterName) (T, error) {
	c.lock.RLock()
	defer c.lock.RUnlock()
	if e, ok := c.clusters[clusterName]; ok {
		return e.cluster, nil
	}
	var zero T
	return zero, fmt.Errorf("cluster %q: %w", clusterName, multicluster.ErrClusterNotFound)
}

// Add starts the cluster with a context derived from ctx (ctx is the parent of the cluster's lifetime, typically the
// provider's run context), applies the recorded field indexes, waits for its cache to sync (at most
// WaitCacheTimeout) and engages it with aware. The cluster is retrievable with Get from the start. It fails for a
// name already present. If any step fails, the cluster is stopped and removed, and the error names it.
func (c *Clusters[T]) Add(ctx context.Context, clusterName multicluster.ClusterName, cl T, aware multicluster.Aware) error {
	c.lock.Lock()
	if c.clusters == nil {
		c.clusters = map[multicluster.ClusterName]*entry[T]{}
	}
	if _, ok := c.clusters[clusterName]; ok {
		c.lock.Unlock()
		return fmt.Errorf("cluster %q already exists", clusterName)
	}
	e := c.newEntry(ctx, clusterName, cl)
	c.clusters[clusterName] = e
	c.lock.Unlock()

	if err := c.applyNewIndexes(clusterName, e); err != nil {
		e.cancel()
		return err
	}
	return c.startAndEngage(clusterName, e, aware)
}

// AddOrReplace adds the cluster like Add. If the name is present and EqualClusters finds the new cluster equal to
// the present one, it does nothing. Otherwise the new cluster is started, synced and engaged (which replaces the
// old one in every engaged component), and only then is the old one stopped; its teardown never removes the new
// one. If the new cluster fails, the old one stays.
func (c *Clusters[T]) AddOrReplace(ctx context.Context, clusterName multicluster.ClusterName, cl T, aware multicluster.Aware) error {
	c.lock.Lock()
	if c.clusters == nil {
		c.clusters = map[multicluster.ClusterName]*entry[T]{}
	}
	old, present := c.clusters[clusterName]
	if present && c.equal(old.cluster, cl) {
		c.lock.Unlock()
		return nil
	}
	e := c.newEntry(ctx, clusterName, cl)
	if !present {
		c.clusters[clusterName] = e
	}
	c.lock.Unlock()

	if err := c.applyNewIndexes(clusterName, e); err != nil {
		e.cancel()
		return err
	}
	if !present {
		return c.startAndEngage(clusterName, e, aware)
	}

	// Bring the new cluster up beside the old one; the old one serves Get until the new one is engaged.
	if err := c.start(clusterName, e); err != nil {
		return err
	}
	c.lock.Lock()
	if c.clusters[clusterName] != old {
		// Removed or replaced meanwhile: that later decision wins.
		c.lock.Unlock()
		e.cancel()
		return fmt.Errorf("cluster %q changed while it was being replaced", clusterName)
	}
	c.clusters[clusterName] = e
	c.lock.Unlock()

	// Indexes recorded while the new cluster was starting were registered on the old one only.
	indexCtx, cancel := context.WithTimeout(e.ctx, c.waitCacheTimeout())
	err := c.applyIndexes(indexCtx, clusterName, e)
	cancel()
	if err != nil {
		c.handleError(err, "Failed to register field indexes on the replacing cluster", "cluster", clusterName)
	}

	if err := aware.Engage(e.ctx, clusterName, cl); err != nil {
		c.lock.Lock()
		if c.clusters[clusterName] == e {
			c.clusters[clusterName] = old
		}
		c.lock.Unlock()
		e.cancel()
		metrics.ClusterErrors.WithLabelValues(clusterName.String(), "provider", "engage").Inc()
		// The components that took the new cluster before the failure have let the old one go: engage the old
		// one again, so that it stays engaged everywhere.
		if old.ctx.Err() == nil {
			if reErr := aware.Engage(old.ctx, clusterName, old.cluster); reErr != nil {
				err = errors.Join(err, fmt.Errorf("engaging the previous cluster again: %w", reErr))
			}
		}
		return fmt.Errorf("engaging cluster %q: %w", clusterName, err)
	}
	old.cancel()
	return nil
}

// Remove stops the named cluster by cancelling its context, which disengages it everywhere, and forgets it. It
// does nothing for unknown names.
func (c *Clusters[T]) Remove(clusterName multicluster.ClusterName) {
	c.lock.Lock()
	e, ok := c.clusters[clusterName]
	if ok {
		delete(c.clusters, clusterName)
	}
	c.lock.Unlock()
	if ok {
		e.cancel()
	}
}

// IndexField records the index and registers it on every present cluster, in parallel; clusters added later get it
// before they start. On a running cluster, registering an index waits for that cluster's informer of obj's type to
// sync, so each cluster's registration is bounded by WaitCacheTimeout. Errors name the clusters they concern; the
// index stays recorded either way.
func (c *Clusters[T]) IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
	c.lock.Lock()
	c.indexers = append(c.indexers, Index{Object: obj, Field: field, Extractor: extractValue})
	present := make(map[multicluster.ClusterName]*entry[T], len(c.clusters))
	for name, e := range c.clusters {
		present[name] = e
	}
	c.lock.Unlock()

	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for name, e := range present {
		wg.Add(1)
		go func() {
			defer wg.Done()
			indexCtx, cancel := context.WithTimeout(ctx, c.waitCacheTimeout())
			defer cancel()
			if err := c.applyIndexes(indexCtx, name, e); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Indexers returns the field indexes recorded so far.
func (c *Clusters[T]) Indexers() []Index {
	c.lock.RLock()
	defer c.lock.RUnlock()
	return slices.Clone(c.indexers)
}

// newEntry creates the cluster's context, a lifetime (WithLifetime) that every layer engaging the cluster watches
// cheaply; the entry forgets itself when that context ends.
func (c *Clusters[T]) newEntry(ctx context.Context, clusterName multicluster.ClusterName, cl T) *entry[T] {
	clusterCtx, cancel := WithLifetime(ctx)
	e := &entry[T]{cluster: cl, ctx: clusterCtx}
	// Cancelling forgets the entry at once, so that a failed Add is not gettable when it returns; the AfterFunc
	// covers the parent context ending.
	e.cancel = func() {
		cancel()
		c.forget(clusterName, e)
	}
	AfterFunc(clusterCtx, func() { c.forget(clusterName, e) })
	return e
}

// applyNewIndexes registers the recorded indexes on a cluster that is not started yet. Removing the cluster or
// WaitCacheTimeout aborts it, for example while a slow API server answers discovery.
func (c *Clusters[T]) applyNewIndexes(clusterName multicluster.ClusterName, e *entry[T]) error {
	ctx, cancel := context.WithTimeout(e.ctx, c.waitCacheTimeout())
	defer cancel()
	return c.applyIndexes(ctx, clusterName, e)
}

// applyIndexes registers on the cluster every recorded index it does not have yet, without holding the lock of
// the whole set, so that one slow cluster never blocks the others.
func (c *Clusters[T]) applyIndexes(ctx context.Context, clusterName multicluster.ClusterName, e *entry[T]) error {
	e.indexMu.Lock()
	defer e.indexMu.Unlock()
	c.lock.RLock()
	missing := slices.Clone(c.indexers[e.indexed:])
	c.lock.RUnlock()
	for _, idx := range missing {
		if err := e.cluster.GetFieldIndexer().IndexField(ctx, idx.Object, idx.Field, idx.Extractor); err != nil {
			return fmt.Errorf("cluster %q: indexing field %q of %T: %w", clusterName, idx.Field, idx.Object, err)
		}
		e.indexed++
	}
	return nil
}

// forget removes the entry once its context ends, unless the name now holds another cluster.
func (c *Clusters[T]) forget(clusterName multicluster.ClusterName, e *entry[T]) {
	c.lock.Lock()
	defer c.lock.Unlock()
	if c.clusters[clusterName] == e {
		delete(c.clusters, clusterName)
	}
}

// startAndEngage starts a newly added cluster and engages it; on failure the cluster is stopped and removed.
func (c *Clusters[T]) startAndEngage(clusterName multicluster.ClusterName, e *entry[T], aware multicluster.Aware) error {
	if err := c.start(clusterName, e); err != nil {
		return err
	}
	if err := aware.Engage(e.ctx, clusterName, e.cluster); err != nil {
		e.cancel()
		metrics.ClusterErrors.WithLabelValues(clusterName.String(), "provider", "engage").Inc()
		return fmt.Errorf("engaging cluster %q: %w", clusterName, err)
	}
	return nil
}

// start runs the cluster in the background and waits, at most WaitCacheTimeout, for its cache to sync. On failure
// the cluster is stopped.
func (c *Clusters[T]) start(clusterName multicluster.ClusterName, e *entry[T]) error {
	began := time.Now()
	go func() {
		if err := e.cluster.Start(e.ctx); err != nil {
			c.handleError(err, "Cluster stopped with an error", "cluster", clusterName)
			e.cancel()
		}
	}()

	timeout := c.waitCacheTimeout()
	syncCtx, cancel := context.WithTimeout(e.ctx, timeout)
	defer cancel()
	if !e.cluster.GetCache().WaitForCacheSync(syncCtx) {
		e.cancel()
		metrics.ClusterErrors.WithLabelValues(clusterName.String(), "provider", "sync").Inc()
		return fmt.Errorf("cluster %q: cache did not sync within %s: %w", clusterName, timeout, context.Cause(syncCtx))
	}
	metrics.ProviderEngageDuration.Observe(time.Since(began).Seconds())
	return nil
}

func (c *Clusters[T]) handleError(err error, msg string, keysAndValues ...any) {
	if c.ErrorHandler != nil {
		c.ErrorHandler(err, msg, keysAndValues...)
		return
	}
	logf.Log.WithName("clusters").Error(err, msg, keysAndValues...)
}

func (c *Clusters[T]) waitCacheTimeout() time.Duration {
	if c.WaitCacheTimeout <= 0 {
		return DefaultWaitCacheTimeout
	}
	return c.WaitCacheTimeout
}

func (c *Clusters[T]) equal(a, b T) bool {
	if c.EqualClusters != nil {
		return c.EqualClusters(a, b)
	}
	return EqualClusters(a, b)
}
