// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package handler_test

import (
	"context"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// newQueue returns a real rate-limiting work queue of multi-cluster requests, shut down when the test ends.
func newQueue[request comparable](t *testing.T) workqueue.TypedRateLimitingInterface[request] {
	t.Helper()
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[request]())
	t.Cleanup(q.ShutDown)
	return q
}

// drain takes every item queued now out of q.
func drain[request comparable](q workqueue.TypedRateLimitingInterface[request]) []request {
	var items []request
	for q.Len() > 0 {
		item, _ := q.Get()
		q.Done(item)
		items = append(items, item)
	}
	return items
}

func pod(namespace, name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
}

func req(clusterName multicluster.ClusterName, namespace, name string) mcreconcile.Request {
	return mcreconcile.Request{
		Request:     reconcile.Request{NamespacedName: types.NamespacedName{Namespace: namespace, Name: name}},
		ClusterName: clusterName,
	}
}

// sendAll sends one event of each type for obj to h.
func sendAll[request comparable](ctx context.Context, h handler.TypedEventHandler[client.Object, request], obj client.Object, q workqueue.TypedRateLimitingInterface[request]) {
	h.Create(ctx, event.CreateEvent{Object: obj}, q)
	h.Update(ctx, event.UpdateEvent{ObjectOld: obj, ObjectNew: obj}, q)
	h.Delete(ctx, event.DeleteEvent{Object: obj}, q)
	h.Generic(ctx, event.GenericEvent{Object: obj}, q)
}

// recordingHandler enqueues, for every event, a plain request for the event's object and counts the events.
func recordingHandler(counts map[string]int) handler.EventHandler {
	enqueue := func(what string, obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		counts[what]++
		q.Add(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
	}
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue("create", e.Object, q)
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue("update", e.ObjectNew, q)
		},
		DeleteFunc: func(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue("delete", e.Object, q)
		},
		GenericFunc: func(_ context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			enqueue("generic", e.Object, q)
		},
	}
}

func TestSingleClusterHandlersAreStampedWithTheirCluster(t *testing.T) {
	tests := []struct {
		name string
		// build returns the handler of cluster "c" around a plain handler.
		build func(h handler.EventHandler) mchandler.EventHandler
	}{
		{
			name:  "ForCluster",
			build: func(h handler.EventHandler) mchandler.EventHandler { return mchandler.ForCluster(h, "c") },
		},
		{
			name: "TypedForCluster",
			build: func(h handler.EventHandler) mchandler.EventHandler {
				return mchandler.TypedForCluster[client.Object](h, "c")
			},
		},
		{
			name:  "Lift",
			build: func(h handler.EventHandler) mchandler.EventHandler { return mchandler.Lift(h)("c", nil) },
		},
		{
			name: "TypedLift",
			build: func(h handler.EventHandler) mchandler.EventHandler {
				return mchandler.TypedLift[client.Object](h)("c", nil)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			counts := map[string]int{}
			q := newQueue[mcreconcile.Request](t)
			h := tt.build(recordingHandler(counts))

			for _, name := range []string{"a", "b", "c", "d"} {
				h.Create(t.Context(), event.CreateEvent{Object: pod("ns", name)}, q)
			}
			h.Update(t.Context(), event.UpdateEvent{ObjectOld: pod("ns", "e"), ObjectNew: pod("ns", "e")}, q)
			h.Delete(t.Context(), event.DeleteEvent{Object: pod("ns", "f")}, q)
			h.Generic(t.Context(), event.GenericEvent{Object: pod("ns", "g")}, q)

			want := []mcreconcile.Request{
				req("c", "ns", "a"), req("c", "ns", "b"), req("c", "ns", "c"), req("c", "ns", "d"),
				req("c", "ns", "e"), req("c", "ns", "f"), req("c", "ns", "g"),
			}
			if got := drain(q); !slices.Equal(got, want) {
				t.Errorf("queued %v, want %v", got, want)
			}
			if want := map[string]int{"create": 4, "update": 1, "delete": 1, "generic": 1}; !mapsEqual(counts, want) {
				t.Errorf("wrapped handler saw events %v, want %v", counts, want)
			}
		})
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestLiftBuildsOneHandlerPerCluster(t *testing.T) {
	lifted := mchandler.Lift(&handler.EnqueueRequestForObject{})
	q := newQueue[mcreconcile.Request](t)

	for _, clusterName := range []string{"a", "b", ""} {
		lifted(multicluster.ClusterName(clusterName), nil).Create(t.Context(), event.CreateEvent{Object: pod("ns", "name")}, q)
	}

	want := []mcreconcile.Request{req("a", "ns", "name"), req("b", "ns", "name"), req("", "ns", "name")}
	if got := drain(q); !slices.Equal(got, want) {
		t.Errorf("queued %v, want %v", got, want)
	}
}

func TestEnqueueRequestForObject(t *testing.T) {
	tests := []struct {
		name string
		h    mchandler.EventHandler
	}{
		{name: "EnqueueRequestForObject", h: mchandler.EnqueueRequestForObject("c", nil)},
		{name: "TypedEnqueueRequestForObject", h: mchandler.TypedEnqueueRequestForObject[client.Object]()("c", nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newQueue[mcreconcile.Request](t)
			sendAll(t.Context(), tt.h, pod("ns", "name"), q)
			// The four events enqueue the same request, which the queue deduplicates.
			want := []mcreconcile.Request{req("c", "ns", "name")}
			if got := drain(q); !slices.Equal(got, want) {
				t.Errorf("queued %v, want %v", got, want)
			}
		})
	}
}

// otherClusterHandler enqueues, for every event, a request for the event's object in the cluster "elsewhere".
func otherClusterHandler() handler.TypedEventHandler[client.Object, mcreconcile.Request] {
	return handler.TypedEnqueueRequestsFromMapFunc(func(_ context.Context, obj client.Object) []mcreconcile.Request {
		return []mcreconcile.Request{req("elsewhere", obj.GetNamespace(), obj.GetName())}
	})
}

func TestTypedInjectClusterOverridesTheRequestCluster(t *testing.T) {
	h := mchandler.TypedInjectCluster(otherClusterHandler())
	q := newQueue[mcreconcile.Request](t)

	for _, clusterName := range []string{"a", "b", ""} {
		sendAll(t.Context(), h(multicluster.ClusterName(clusterName), nil), pod("ns", clusterName+"-obj"), q)
	}

	want := []mcreconcile.Request{req("a", "ns", "a-obj"), req("b", "ns", "b-obj"), req("", "ns", "-obj")}
	if got := drain(q); !slices.Equal(got, want) {
		t.Errorf("queued %v, want %v", got, want)
	}
}

// fanOut maps an object to two requests: one without a cluster and one for the cluster "elsewhere".
func fanOut(_ context.Context, obj client.Object) []mcreconcile.Request {
	return []mcreconcile.Request{
		req("", obj.GetNamespace(), obj.GetName()+"-1"),
		req("elsewhere", obj.GetNamespace(), obj.GetName()+"-2"),
	}
}

func TestTypedEnqueueRequestsFromMapFuncStampsTheEventCluster(t *testing.T) {
	tests := []struct {
		name string
		h    mchandler.EventHandlerFunc
	}{
		{name: "typed", h: mchandler.TypedEnqueueRequestsFromMapFunc[client.Object, mcreconcile.Request](fanOut)},
		{
			name: "untyped",
			h: mchandler.EnqueueRequestsFromMapFunc(func(_ context.Context, obj client.Object) []reconcile.Request {
				return []reconcile.Request{
					{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName() + "-1"}},
					{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName() + "-2"}},
				}
			}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newQueue[mcreconcile.Request](t)
			sendAll(t.Context(), tt.h("src", nil), pod("ns", "obj"), q)

			want := []mcreconcile.Request{req("src", "ns", "obj-1"), req("src", "ns", "obj-2")}
			if got := drain(q); !slices.Equal(got, want) {
				t.Errorf("queued %v, want %v", got, want)
			}
		})
	}
}

func TestTypedEnqueueRequestsFromMapFuncWithClusterPreservation(t *testing.T) {
	h := mchandler.TypedEnqueueRequestsFromMapFuncWithClusterPreservation[client.Object, mcreconcile.Request](fanOut)
	q := newQueue[mcreconcile.Request](t)

	sendAll(t.Context(), h, pod("ns", "obj"), q)

	want := []mcreconcile.Request{req("", "ns", "obj-1"), req("elsewhere", "ns", "obj-2")}
	if got := drain(q); !slices.Equal(got, want) {
		t.Errorf("queued %v, want %v", got, want)
	}
}

func TestTypedEnqueueRequestsFromClusterMapFunc(t *testing.T) {
	var seen []string
	fn := func(_ context.Context, clusterName multicluster.ClusterName, obj client.Object) []mcreconcile.Request {
		seen = append(seen, clusterName.String())
		// Mirror every object of a fleet cluster onto the host cluster, and keep one copy where it came from.
		return []mcreconcile.Request{
			req("", clusterName.String(), obj.GetName()),
			req(clusterName, obj.GetNamespace(), obj.GetName()),
		}
	}
	tests := []struct {
		name string
		h    mchandler.EventHandlerFunc
	}{
		{name: "typed", h: mchandler.TypedEnqueueRequestsFromClusterMapFunc[client.Object, mcreconcile.Request](fn)},
		{name: "untyped", h: mchandler.EnqueueRequestsFromClusterMapFunc(fn)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen = nil
			q := newQueue[mcreconcile.Request](t)

			tt.h("a", nil).Create(t.Context(), event.CreateEvent{Object: pod("ns", "obj")}, q)
			tt.h("b", nil).Delete(t.Context(), event.DeleteEvent{Object: pod("ns", "obj")}, q)

			if want := []string{"a", "b"}; !slices.Equal(seen, want) {
				t.Errorf("map func saw clusters %v, want %v", seen, want)
			}
			want := []mcreconcile.Request{
				req("", "a", "obj"), req("a", "ns", "obj"),
				req("", "b", "obj"), req("b", "ns", "obj"),
			}
			if got := drain(q); !slices.Equal(got, want) {
				t.Errorf("queued %v, want %v", got, want)
			}
		})
	}
}

// fakeCluster is a cluster.Cluster with only a scheme and a REST mapper; other methods panic.
type fakeCluster struct {
	cluster.Cluster
	scheme *runtime.Scheme
	mapper meta.RESTMapper
}

func (c *fakeCluster) GetScheme() *runtime.Scheme     { return c.scheme }
func (c *fakeCluster) GetRESTMapper() meta.RESTMapper { return c.mapper }

// newFakeCluster registers ReplicaSet under gv in a fresh scheme, and maps it with the given scope.
func newFakeCluster(t *testing.T, gv schema.GroupVersion, scope meta.RESTScope) *fakeCluster {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	gvk := gv.WithKind("ReplicaSet")
	scheme.AddKnownTypeWithName(gvk, &appsv1.ReplicaSet{})
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{gv})
	mapper.Add(gvk, scope)
	return &fakeCluster{scheme: scheme, mapper: mapper}
}

func ownedPod(owners ...metav1.OwnerReference) *corev1.Pod {
	p := pod("ns", "pod")
	p.OwnerReferences = owners
	return p
}

func TestEnqueueRequestForOwnerUsesTheClusterSchemeAndMapper(t *testing.T) {
	// The two clusters know ReplicaSet under different groups and scopes, so the same owner references resolve
	// differently in each.
	clusterA := newFakeCluster(t, schema.GroupVersion{Group: "apps", Version: "v1"}, meta.RESTScopeNamespace)
	clusterB := newFakeCluster(t, schema.GroupVersion{Group: "example.com", Version: "v1"}, meta.RESTScopeRoot)

	obj := ownedPod(
		metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs-apps", Controller: ptr.To(true)},
		metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "ReplicaSet", Name: "rs-example"},
	)

	tests := []struct {
		name string
		h    mchandler.EventHandlerFunc
		want []mcreconcile.Request
	}{
		{
			name: "every owner",
			h:    mchandler.EnqueueRequestForOwner(&appsv1.ReplicaSet{}),
			want: []mcreconcile.Request{
				req("a", "ns", "rs-apps"),
				// Cluster-scoped in b, so without a namespace.
				req("b", "", "rs-example"),
			},
		},
		{
			name: "controller owner only",
			h:    mchandler.TypedEnqueueRequestForOwner[client.Object](&appsv1.ReplicaSet{}, handler.OnlyControllerOwner()),
			want: []mcreconcile.Request{req("a", "ns", "rs-apps")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newQueue[mcreconcile.Request](t)
			tt.h("a", clusterA).Create(t.Context(), event.CreateEvent{Object: obj}, q)
			tt.h("b", clusterB).Create(t.Context(), event.CreateEvent{Object: obj}, q)
			if got := drain(q); !slices.Equal(got, tt.want) {
				t.Errorf("queued %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEnqueueRequestForOwnerAllEvents(t *testing.T) {
	cl := newFakeCluster(t, appsv1.SchemeGroupVersion, meta.RESTScopeNamespace)
	h := mchandler.EnqueueRequestForOwner(&appsv1.ReplicaSet{}, handler.OnlyControllerOwner())("c", cl)

	events := []struct {
		name string
		send func(obj client.Object, q workqueue.TypedRateLimitingInterface[mcreconcile.Request])
	}{
		{"create", func(obj client.Object, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
			h.Create(t.Context(), event.CreateEvent{Object: obj}, q)
		}},
		{"update", func(obj client.Object, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
			h.Update(t.Context(), event.UpdateEvent{ObjectOld: pod("ns", "pod"), ObjectNew: obj}, q)
		}},
		{"delete", func(obj client.Object, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
			h.Delete(t.Context(), event.DeleteEvent{Object: obj}, q)
		}},
		{"generic", func(obj client.Object, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
			h.Generic(t.Context(), event.GenericEvent{Object: obj}, q)
		}},
	}
	for _, e := range events {
		t.Run(e.name, func(t *testing.T) {
			q := newQueue[mcreconcile.Request](t)
			e.send(ownedPod(metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", Controller: ptr.To(true)}), q)
			e.send(pod("ns", "orphan"), q)
			want := []mcreconcile.Request{req("c", "ns", "rs")}
			if got := drain(q); !slices.Equal(got, want) {
				t.Errorf("queued %v, want %v", got, want)
			}
		})
	}
}
