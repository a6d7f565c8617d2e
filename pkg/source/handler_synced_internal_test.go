// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package source

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// fakeRegistration is a handler registration whose HasSynced and HasSyncedChecker are set apart, to tell which of
// the two a waiter relies on.
type fakeRegistration struct {
	synced  atomic.Bool
	checker toolscache.DoneChecker
}

func (r *fakeRegistration) HasSynced() bool                          { return r.synced.Load() }
func (r *fakeRegistration) HasSyncedChecker() toolscache.DoneChecker { return r.checker }

// doneChecker is a DoneChecker of a channel.
type doneChecker chan struct{}

func (d doneChecker) Name() string          { return "fake" }
func (d doneChecker) Done() <-chan struct{} { return d }

// TestHandlerSyncedReturnsWhenTheRegistrationNotifiesIt proves that the source waits for its handler's sync on the
// registration's notification: the checker is done while HasSynced still reports false, which a waiter that
// checks HasSynced every 100 ms (client-go's WaitForCacheSync, what the source did before) never sees, and would
// wait until the context ended.
func TestHandlerSyncedReturnsWhenTheRegistrationNotifiesIt(t *testing.T) {
	done := make(doneChecker)
	close(done)
	reg := &fakeRegistration{checker: done}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if !handlerSynced(ctx, reg) {
		t.Fatal("handlerSynced = false, want true once the registration's checker is done")
	}
	if ctx.Err() != nil {
		t.Fatal("handlerSynced waited for the context to end instead of the registration's notification")
	}
}

// TestHandlerSyncedReportsFalseWhenTheContextEndsFirst: a handler that never syncs leaves the waiter when its
// context ends, reporting that it has not synced.
func TestHandlerSyncedReportsFalseWhenTheContextEndsFirst(t *testing.T) {
	reg := &fakeRegistration{checker: make(doneChecker)}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if handlerSynced(ctx, reg) {
		t.Fatal("handlerSynced = true for a handler that never synced")
	}
}

// TestHandlerSyncedChecksARegistrationWithoutAChecker: a registration that offers no checker is checked as
// WaitForCacheSync checks it, and its sync is seen.
func TestHandlerSyncedChecksARegistrationWithoutAChecker(t *testing.T) {
	reg := &fakeRegistration{}
	go reg.synced.Store(true)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if !handlerSynced(ctx, reg) {
		t.Fatal("handlerSynced = false for a registration without a checker that synced")
	}
}

// notifyingCache is a cache whose only informer hands out reg for every handler added to it.
type notifyingCache struct {
	cache.Cache
	reg *fakeRegistration
}

func (c notifyingCache) GetInformer(context.Context, client.Object, ...cache.InformerGetOption) (cache.Informer, error) {
	return notifyingInformer{reg: c.reg}, nil
}

type notifyingInformer struct {
	cache.Informer
	reg *fakeRegistration
}

func (i notifyingInformer) AddEventHandlerWithOptions(toolscache.ResourceEventHandler, toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.reg, nil
}

func (i notifyingInformer) RemoveEventHandler(toolscache.ResourceEventHandlerRegistration) error {
	return nil
}

// TestClusterKindIsSyncedWhenItsHandlerIsNotified proves that a cluster's source is synced (WaitForSync returns)
// on its handler registration's notification: with a registration that notifies but whose HasSynced stays
// false, a source that checked HasSynced (WaitForCacheSync) would wait until WaitForSync's context ended.
func TestClusterKindIsSyncedWhenItsHandlerIsNotified(t *testing.T) {
	done := make(doneChecker)
	close(done)
	k := &clusterKind[*corev1.ConfigMap, mcreconcile.Request]{
		clusterName: "member",
		cache:       notifyingCache{reg: &fakeRegistration{checker: done}},
		obj:         &corev1.ConfigMap{},
		handler:     mchandler.TypedEnqueueRequestForObject[*corev1.ConfigMap]()("member", nil),
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[mcreconcile.Request]())
	defer q.ShutDown()
	if err := k.Start(ctx, q); err != nil {
		t.Fatal(err)
	}
	waitCtx, waitCancel := context.WithTimeout(ctx, 30*time.Second)
	defer waitCancel()
	if err := k.WaitForSync(waitCtx); err != nil {
		t.Fatalf("WaitForSync: %v, want the source synced on its registration's notification", err)
	}
}
