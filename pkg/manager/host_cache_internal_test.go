// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The tests of this file check the waits of notifiedCache against a cache and informers whose sync the test
// controls: which options the wrapped cache is asked with, and what has synced when a call returns.

// syncSignal is a sync that the test completes: HasSynced and a DoneChecker.
type syncSignal struct {
	once sync.Once
	done chan struct{}
}

func newSyncSignal() *syncSignal { return &syncSignal{done: make(chan struct{})} }

func (s *syncSignal) complete() { s.once.Do(func() { close(s.done) }) }

func (s *syncSignal) synced() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *syncSignal) Name() string          { return "test" }
func (s *syncSignal) Done() <-chan struct{} { return s.done }

// testRegistration is a handler registration that has synced when its signal completes.
type testRegistration struct{ sync *syncSignal }

func (r *testRegistration) HasSynced() bool                          { return r.sync.synced() }
func (r *testRegistration) HasSyncedChecker() toolscache.DoneChecker { return r.sync }

// testInformer is a cache.Informer (and, through its nil embedded interface, a toolscache.SharedIndexInformer whose
// other methods are not called) that has synced when its signal completes, and whose handlers' registrations sync
// when the test completes the signal it handed out for them on added.
type testInformer struct {
	toolscache.SharedIndexInformer
	sync  *syncSignal
	added chan *syncSignal
}

func newTestInformer() *testInformer {
	return &testInformer{sync: newSyncSignal(), added: make(chan *syncSignal, 1)}
}

func (i *testInformer) HasSynced() bool                          { return i.sync.synced() }
func (i *testInformer) HasSyncedChecker() toolscache.DoneChecker { return i.sync }

func (i *testInformer) AddEventHandler(toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.register()
}

func (i *testInformer) AddEventHandlerWithResyncPeriod(toolscache.ResourceEventHandler, time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.register()
}

func (i *testInformer) AddEventHandlerWithOptions(toolscache.ResourceEventHandler, toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.register()
}

func (i *testInformer) register() (toolscache.ResourceEventHandlerRegistration, error) {
	s := newSyncSignal()
	i.added <- s
	return &testRegistration{sync: s}, nil
}

// plainInformer is a cache.Informer that is not a toolscache.SharedIndexInformer, as the informers of a cache of
// several namespaces are.
type plainInformer struct {
	cache.Informer
}

// testCache is a cache.Cache that returns its informer and records whether it was asked to block.
type testCache struct {
	cache.Cache
	informer cache.Informer

	mu      sync.Mutex
	blocked []bool
}

func (c *testCache) get(opts []cache.InformerGetOption) (cache.Informer, error) {
	var o cache.InformerGetOptions
	for _, opt := range opts {
		opt(&o)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.blocked = append(c.blocked, o.BlockUntilSynced == nil || *o.BlockUntilSynced)
	return c.informer, nil
}

func (c *testCache) GetInformer(_ context.Context, _ client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	return c.get(opts)
}

func (c *testCache) GetInformerForKind(_ context.Context, _ schema.GroupVersionKind, opts ...cache.InformerGetOption) (cache.Informer, error) {
	return c.get(opts)
}

func (c *testCache) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (c *testCache) askedToBlock() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.blocked {
		if b {
			return true
		}
	}
	return false
}

// newNotifiedCache returns a notifiedCache around a testCache with informer, started if started.
func newNotifiedCache(t *testing.T, informer cache.Informer, started bool) (*notifiedCache, *testCache) {
	t.Helper()
	inner := &testCache{informer: informer}
	c, err := syncNotifiedCache(func(*rest.Config, cache.Options) (cache.Cache, error) { return inner, nil })(&rest.Config{}, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	nc := c.(*notifiedCache)
	if started {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); _ = nc.Start(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
		if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, 10*time.Second, true,
			func(context.Context) (bool, error) { return nc.started.Load(), nil }); err != nil {
			t.Fatal("the cache did not start")
		}
	}
	return nc, inner
}

// result is what a call for an informer returned, and whether the informer had synced when it did.
type result struct {
	informer cache.Informer
	synced   bool
	err      error
}

func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: nothing within 30s", what)
		panic("unreachable")
	}
}

func TestNotifiedCacheReturnsAnInformerOnceItHasSyncedWithoutAskingTheCacheToBlock(t *testing.T) {
	for _, how := range []string{"GetInformer", "GetInformerForKind"} {
		t.Run(how, func(t *testing.T) {
			informer := newTestInformer()
			c, inner := newNotifiedCache(t, informer, true)
			results := make(chan result, 1)
			go func() {
				var i cache.Informer
				var err error
				if how == "GetInformer" {
					i, err = c.GetInformer(t.Context(), &corev1.Secret{})
				} else {
					i, err = c.GetInformerForKind(t.Context(), corev1.SchemeGroupVersion.WithKind("Secret"))
				}
				results <- result{informer: i, synced: informer.HasSynced(), err: err}
			}()
			if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, 30*time.Second, true,
				func(context.Context) (bool, error) {
					inner.mu.Lock()
					defer inner.mu.Unlock()
					return len(inner.blocked) > 0, nil
				}); err != nil {
				t.Fatal("the wrapped cache was not asked for the informer")
			}
			informer.sync.complete()
			r := receive(t, results, how)
			if r.err != nil || !r.synced {
				t.Fatalf("%s returned (err %v) before the informer had synced", how, r.err)
			}
			if inner.askedToBlock() {
				t.Errorf("%s asked the wrapped cache to block, which checks the sync every 100 ms", how)
			}
			if _, ok := r.informer.(toolscache.SharedIndexInformer); !ok {
				t.Errorf("%s returned %T: a shared informer's wrapper must still be a toolscache.SharedIndexInformer", how, r.informer)
			}
		})
	}
}

func TestNotifiedCacheDoesNotWaitWhereControllerRuntimeDoesNot(t *testing.T) {
	t.Run("not started", func(t *testing.T) {
		c, _ := newNotifiedCache(t, newTestInformer(), false)
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		if _, err := c.GetInformer(ctx, &corev1.Secret{}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("asked not to block", func(t *testing.T) {
		c, inner := newNotifiedCache(t, newTestInformer(), true)
		if _, err := c.GetInformer(t.Context(), &corev1.Secret{}, cache.BlockUntilSynced(false)); err != nil {
			t.Fatal(err)
		}
		if inner.askedToBlock() {
			t.Error("the wrapped cache was asked to block")
		}
	})
}

func TestNotifiedCacheReturnsControllerRuntimesTimeoutWhenTheContextEndsFirst(t *testing.T) {
	c, _ := newNotifiedCache(t, newTestInformer(), true)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := c.GetInformer(ctx, &corev1.Secret{})
	if !apierrors.IsTimeout(err) {
		t.Fatalf("got %v, want a timeout error as controller-runtime's cache returns", err)
	}
}

func TestNotifiedInformerReturnsFromAddingAHandlerOnceTheHandlerHasSynced(t *testing.T) {
	for _, shared := range []bool{true, false} {
		name := map[bool]string{true: "shared informer", false: "informer of several namespaces"}[shared]
		t.Run(name, func(t *testing.T) {
			informer := newTestInformer()
			informer.sync.complete()
			var wrapped cache.Informer = informer
			if !shared {
				wrapped = &plainInformer{Informer: informer}
			}
			c, _ := newNotifiedCache(t, wrapped, true)
			i, err := c.GetInformer(t.Context(), &corev1.Secret{})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := i.(toolscache.SharedIndexInformer); ok != shared {
				t.Errorf("GetInformer returned %T, a shared informer: %v, want %v", i, ok, shared)
			}
			registered := make(chan bool, 1)
			go func() {
				r, err := i.AddEventHandler(toolscache.ResourceEventHandlerFuncs{})
				registered <- err == nil && r.HasSynced()
			}()
			receive(t, informer.added, "the handler added").complete()
			if !receive(t, registered, "AddEventHandler") {
				t.Fatal("AddEventHandler returned before the handler had seen the informer's objects")
			}
		})
	}
}

func TestNotifiedInformerWaitsForAHandlerThatNeverSyncsOnlyBriefly(t *testing.T) {
	informer := newTestInformer()
	informer.sync.complete()
	c, _ := newNotifiedCache(t, informer, true)
	i, err := c.GetInformer(t.Context(), &corev1.Secret{})
	if err != nil {
		t.Fatal(err)
	}
	registered := make(chan error, 1)
	go func() {
		_, err := i.AddEventHandlerWithOptions(toolscache.ResourceEventHandlerFuncs{}, toolscache.HandlerOptions{})
		registered <- err
	}()
	receive(t, informer.added, "the handler added") // never completed: a handler that waits for the caller
	if err := receive(t, registered, "AddEventHandlerWithOptions"); err != nil {
		t.Fatal(err)
	}
}
