// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package handler_test

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// newPriorityQueue returns controller-runtime's priority queue, shut down when the test ends.
func newPriorityQueue(t *testing.T) priorityqueue.PriorityQueue[mcreconcile.Request] {
	t.Helper()
	q := priorityqueue.New[mcreconcile.Request]("mchandler-test-" + strings.ReplaceAll(t.Name(), "/", "-"))
	t.Cleanup(q.ShutDown)
	return q
}

type prioritized struct {
	req      mcreconcile.Request
	priority int
}

// getWithPriority takes the next item out of q, failing the test if none comes.
func getWithPriority(t *testing.T, q priorityqueue.PriorityQueue[mcreconcile.Request]) prioritized {
	t.Helper()
	got := make(chan prioritized, 1)
	go func() {
		item, priority, _ := q.GetWithPriority()
		q.Done(item)
		got <- prioritized{item, priority}
	}()
	select {
	case p := <-got:
		return p
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("nothing was queued")
		return prioritized{}
	}
}

// addOne is a handler that enqueues a request for the object of create and update events with Add, knowing
// nothing about priorities.
func addOne() handler.EventHandler {
	add := func(obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
	}
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			add(e.Object, q)
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			add(e.ObjectNew, q)
		},
	}
}

func TestPriorityIsPassedThrough(t *testing.T) {
	owned := ownedPod(metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "pod", Controller: ptr.To(true)})
	withRV := func(rv string) client.Object {
		o := owned.DeepCopy()
		o.ResourceVersion = rv
		return o
	}

	handlers := []struct {
		name string
		h    mchandler.EventHandlerFunc
	}{
		{name: "TypedEnqueueRequestForObject", h: mchandler.TypedEnqueueRequestForObject[client.Object]()},
		{name: "WithLowPriorityWhenUnchanged(Lift)", h: mchandler.WithLowPriorityWhenUnchanged(mchandler.Lift(addOne()))},
		{
			name: "EnqueueRequestsFromMapFunc",
			h: mchandler.EnqueueRequestsFromMapFunc(func(_ context.Context, obj client.Object) []reconcile.Request {
				return []reconcile.Request{{NamespacedName: client.ObjectKeyFromObject(obj)}}
			}),
		},
		{name: "EnqueueRequestForOwner", h: mchandler.EnqueueRequestForOwner(&appsv1.ReplicaSet{})},
	}
	events := []struct {
		name string
		send func(context.Context, mchandler.EventHandler, workqueue.TypedRateLimitingInterface[mcreconcile.Request])
		want int
	}{
		{
			name: "create from the initial list",
			send: func(ctx context.Context, h mchandler.EventHandler, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
				h.Create(ctx, event.CreateEvent{Object: owned, IsInInitialList: true}, q)
			},
			want: handler.LowPriority,
		},
		{
			name: "new create",
			send: func(ctx context.Context, h mchandler.EventHandler, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
				h.Create(ctx, event.CreateEvent{Object: owned}, q)
			},
			want: 0,
		},
		{
			name: "resync update",
			send: func(ctx context.Context, h mchandler.EventHandler, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
				h.Update(ctx, event.UpdateEvent{ObjectOld: withRV("1"), ObjectNew: withRV("1")}, q)
			},
			want: handler.LowPriority,
		},
		{
			name: "changing update",
			send: func(ctx context.Context, h mchandler.EventHandler, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
				h.Update(ctx, event.UpdateEvent{ObjectOld: withRV("1"), ObjectNew: withRV("2")}, q)
			},
			want: 0,
		},
	}
	cl := newFakeCluster(t, appsv1.SchemeGroupVersion, meta.RESTScopeNamespace)
	for _, h := range handlers {
		for _, e := range events {
			t.Run(h.name+"/"+e.name, func(t *testing.T) {
				q := newPriorityQueue(t)
				e.send(t.Context(), h.h("c", cl), q)

				got := getWithPriority(t, q)
				if want := req("c", "ns", "pod"); got.req != want {
					t.Errorf("queued %v, want %v", got.req, want)
				}
				if got.priority != e.want {
					t.Errorf("priority = %d, want %d", got.priority, e.want)
				}
			})
		}
	}
}

func TestWithLowPriorityWhenUnchangedWithoutPriorityQueue(t *testing.T) {
	h := mchandler.WithLowPriorityWhenUnchanged(mchandler.Lift(addOne()))("c", nil)
	q := newQueue[mcreconcile.Request](t)

	h.Create(t.Context(), event.CreateEvent{Object: pod("ns", "a"), IsInInitialList: true}, q)
	h.Update(t.Context(), event.UpdateEvent{ObjectOld: pod("ns", "b"), ObjectNew: pod("ns", "b")}, q)

	want := []mcreconcile.Request{req("c", "ns", "a"), req("c", "ns", "b")}
	if got := drain(q); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("queued %v, want %v", got, want)
	}
}

func TestPriorityQueueVisibleToWrappedHandler(t *testing.T) {
	var sawPriorityQueue bool
	probe := handler.Funcs{
		CreateFunc: func(_ context.Context, _ event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			_, sawPriorityQueue = q.(priorityqueue.PriorityQueue[reconcile.Request])
		},
	}
	injectProbe := handler.TypedFuncs[client.Object, mcreconcile.Request]{
		CreateFunc: func(_ context.Context, _ event.CreateEvent, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
			_, sawPriorityQueue = q.(priorityqueue.PriorityQueue[mcreconcile.Request])
		},
	}
	adapters := []struct {
		name string
		h    mchandler.EventHandler
	}{
		{name: "ForCluster", h: mchandler.ForCluster(probe, "c")},
		{name: "TypedInjectCluster", h: mchandler.TypedInjectCluster[client.Object, mcreconcile.Request](injectProbe)("c", nil)},
	}
	queues := []struct {
		name string
		q    func(t *testing.T) workqueue.TypedRateLimitingInterface[mcreconcile.Request]
		want bool
	}{
		{name: "rate-limiting queue", q: newQueue[mcreconcile.Request], want: false},
		{
			name: "priority queue",
			q: func(t *testing.T) workqueue.TypedRateLimitingInterface[mcreconcile.Request] {
				return newPriorityQueue(t)
			},
			want: true,
		},
	}
	for _, a := range adapters {
		for _, qq := range queues {
			t.Run(a.name+"/"+qq.name, func(t *testing.T) {
				sawPriorityQueue = !qq.want
				a.h.Create(t.Context(), event.CreateEvent{Object: pod("ns", "name")}, qq.q(t))
				if sawPriorityQueue != qq.want {
					t.Errorf("wrapped handler saw a priority queue: %v, want %v", sawPriorityQueue, qq.want)
				}
			})
		}
	}
}

func TestPriorityQueueAddWithOptsIsStamped(t *testing.T) {
	h := mchandler.ForCluster(handler.Funcs{
		GenericFunc: func(_ context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			pq := q.(priorityqueue.PriorityQueue[reconcile.Request])
			pq.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(7)},
				reconcile.Request{NamespacedName: client.ObjectKeyFromObject(e.Object)})
		},
	}, "c")
	q := newPriorityQueue(t)

	h.Generic(t.Context(), event.GenericEvent{Object: pod("ns", "name")}, q)

	got := getWithPriority(t, q)
	if want := (prioritized{req("c", "ns", "name"), 7}); got != want {
		t.Errorf("queued %+v, want %+v", got, want)
	}
}
