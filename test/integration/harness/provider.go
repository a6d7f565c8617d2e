// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package harness

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// StartProvider runs p.Start with aware in the background until the test ends or the returned function is called
// (see Go).
func StartProvider(t testing.TB, p multicluster.ProviderRunnable, aware multicluster.Aware) (stop func()) {
	t.Helper()
	return Go(t, func(ctx context.Context) error { return p.Start(ctx, aware) })
}

// Go runs run in the background with a context that ends when the test ends or when the returned function is
// called; that function then waits (at most LeakTimeout) for run to return, and fails the test if it did not or
// returned an error. done is closed when run returns, for tests that check it does not return before its time.
func Go(t testing.TB, run func(ctx context.Context) error) (stop func()) {
	t.Helper()
	stop, _ = GoWatched(t, run)
	return stop
}

// GoWatched is Go that also returns a channel closed when run returns.
func GoWatched(t testing.TB, run func(ctx context.Context) error) (stop func(), done <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	var err error
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		err = run(ctx)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-returned:
				if err != nil {
					t.Errorf("returned %v", err)
				}
			case <-time.After(LeakTimeout):
				t.Errorf("did not return within %s of its context ending", LeakTimeout)
			}
		})
	}
	t.Cleanup(stop)
	return stop, returned
}

// ExpectNotFound checks that p.Get of each name fails with an error that matches multicluster.ErrClusterNotFound
// and names the cluster, and returns no cluster.
func ExpectNotFound(t testing.TB, p multicluster.Provider, names ...multicluster.ClusterName) {
	t.Helper()
	for _, name := range names {
		cl, err := p.Get(t.Context(), name)
		switch {
		case !errors.Is(err, multicluster.ErrClusterNotFound):
			t.Errorf("Get(%q) error = %v, want ErrClusterNotFound", name, err)
		case !strings.Contains(err.Error(), `"`+name.String()+`"`):
			t.Errorf("Get(%q) error %q does not name the cluster", name, err)
		case cl != nil:
			t.Errorf("Get(%q) = %v, want nil", name, cl)
		}
	}
}

// IdleCluster is a cluster.Cluster for tests of what starts, engages and stops clusters: its cache has always
// synced and its Start blocks until its context ends. Its other methods panic, unless a type embedding it adds
// them.
type IdleCluster struct {
	cluster.Cluster
}

// GetCache returns a cache that has always synced; its other methods panic.
func (*IdleCluster) GetCache() cache.Cache { return syncedCache{} }

// Start blocks until ctx ends, and returns nil.
func (*IdleCluster) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

// syncedCache is a cache that has always synced.
type syncedCache struct{ cache.Cache }

func (syncedCache) WaitForCacheSync(context.Context) bool { return true }
