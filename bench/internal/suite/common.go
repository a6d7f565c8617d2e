// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"sigs.k8s.io/multicluster-runtime/pkg/informer"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/pkg/restmapper"
)

// firsts records the first time each key is seen.
type firsts struct {
	mu   sync.Mutex
	seen map[string]time.Time
}

func newFirsts() *firsts { return &firsts{seen: map[string]time.Time{}} }

func (f *firsts) mark(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.seen[key]; !ok {
		f.seen[key] = time.Now()
	}
}

// forget drops key, so that a long run of keys seen once each does not grow the record.
func (f *firsts) forget(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.seen, key)
}

func (f *firsts) has(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.seen[key]
	return ok
}

func (f *firsts) at(key string) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[key]
}

func (f *firsts) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.seen)
}

func (f *firsts) since(t0 time.Time) []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]time.Duration, 0, len(f.seen))
	for _, t := range f.seen {
		out = append(out, t.Sub(t0))
	}
	return out
}

// waitUntil polls cond every 10ms until it holds or timeout passes.
func waitUntil(ctx context.Context, timeout time.Duration, what string, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	ticker := time.NewTicker(10 * time.Millisecond)
	defer ticker.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s waiting for %s", timeout, what)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ticker.C:
		}
	}
	return nil
}

// newManager returns a manager of cfg with the provider, without metrics or probe servers, with opts applied to its
// options.
func newManager(cfg *rest.Config, provider multicluster.Provider, opts ...func(*mcmanager.Options)) (mcmanager.Manager, error) {
	o := mcmanager.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	}
	for _, opt := range opts {
		opt(&o)
	}
	return mcmanager.New(cfg, provider, o)
}

// run starts mgr and returns a function that stops it and waits for it.
func run(ctx context.Context, mgr mcmanager.Manager) (stop func() error) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() error {
		cancel()
		return <-done
	}
}

// runLabel marks the namespaces and objects of one scenario run, so that the caches of that run see only them.
const runLabel = "bench.multicluster-runtime.sigs.k8s.io/run"

// seed creates namespace ns with count ConfigMaps in it (named obj-00000 on), all labelled with run, with up to 8
// writers at once.
func seed(ctx context.Context, c client.Client, ns, run string, count int) error {
	labels := map[string]string{runLabel: strings.Trim(run, "-")}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: labels}}); client.IgnoreAlreadyExists(err) != nil {
		return err
	}
	return parallel(8, count, func(i int) error {
		return client.IgnoreAlreadyExists(c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: objectName(i), Labels: labels,
		}}))
	})
}

// objectName names the i-th object seed creates.
func objectName(i int) string { return fmt.Sprintf("obj-%05d", i) }

// writer returns a client of cfg that is not rate limited, for writing load as fast as the API server takes it.
func writer(cfg *rest.Config) (client.Client, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, 0
	return client.New(cfg, client.Options{})
}

// virtualClusters returns a cluster of cfg whose cache sees only the Namespaces and ConfigMaps labelled with run,
// to back the namespace provider: its virtual clusters are then the namespaces of that run alone.
func virtualClusters(cfg *rest.Config, run string) (cluster.Cluster, error) {
	return cluster.New(cfg, func(o *cluster.Options) { sharedCacheOptions(&o.Cache, run) })
}

// separateCluster returns a cluster of cfg (a connection and cache of its own) that sees namespace ns only (see
// inNamespace), built as the library's providers build clusters: with informers that call their handlers
// synchronously (informer.ClusterOption) and discovery shared by the clusters serving the same APIs
// (restmapper.ClusterOption). opts are applied before those, as the providers apply their users' options; one that
// sets a MapperProvider (ownRESTMapper) replaces the shared discovery, one that sets Cache.NewInformer the informers.
func separateCluster(cfg *rest.Config, ns string, opts ...cluster.Option) (cluster.Cluster, error) {
	all := make([]cluster.Option, 0, len(opts)+3)
	all = append(all, inNamespaceOption(ns))
	all = append(all, opts...)
	return cluster.New(cfg, append(all, informer.ClusterOption(), restmapper.ClusterOption())...)
}

// inNamespace makes a cache see the objects of namespace ns only, the way the suite fits many clusters on a few API
// servers: every cluster the suite engages has a namespace of its own and must see nothing else. It selects by
// field (metadata.namespace), so that the cache runs one cluster-wide informer per kind, as the cache of a real
// member cluster does; restricting the cache to a namespace instead (cache.Options.DefaultNamespaces) would make it
// controller-runtime's multi-namespace cache, which runs two more goroutines per cluster.
func inNamespace(o *cache.Options, ns string) {
	o.DefaultFieldSelector = fields.OneTermEqualSelector("metadata.namespace", ns)
}

// inNamespaceOption is the cluster option of inNamespace.
func inNamespaceOption(ns string) cluster.Option {
	return func(o *cluster.Options) { inNamespace(&o.Cache, ns) }
}

// ownRESTMapper gives a cluster a RESTMapper of its own, controller-runtime's default: what every cluster had
// before the library shared discovery.
func ownRESTMapper(o *cluster.Options) {
	o.MapperProvider = apiutil.NewDynamicRESTMapper
}

// parallel runs f(0..n-1) on workers goroutines and returns the first error.
func parallel(workers, n int, f func(i int) error) error {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     int
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := i >= n || firstErr != nil
				mu.Unlock()
				if stop {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}
