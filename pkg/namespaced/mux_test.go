// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespaced

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	toolscache "k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"
)

// These tests drive the multiplexer with a real client-go SharedIndexInformer over a fake ListerWatcher, so that
// they can produce any sequence of events (tombstones included) without an API server.

// recorded is one event seen by a recordingHandler.
type recorded struct {
	kind      string // add, initial-add, update, delete, tombstone
	namespace string
	name      string
	key       string // tombstone key
	data      string
}

// recordingHandler records the events it receives. It is safe for concurrent use.
type recordingHandler struct {
	mu     sync.Mutex
	events []recorded
}

func (h *recordingHandler) OnAdd(obj any, isInInitialList bool) {
	cm := obj.(*corev1.ConfigMap)
	kind := "add"
	if isInInitialList {
		kind = "initial-add"
	}
	h.record(recorded{kind: kind, namespace: cm.Namespace, name: cm.Name, data: cm.Data["v"]})
}

func (h *recordingHandler) OnUpdate(_, newObj any) {
	cm := newObj.(*corev1.ConfigMap)
	h.record(recorded{kind: "update", namespace: cm.Namespace, name: cm.Name, data: cm.Data["v"]})
}

func (h *recordingHandler) OnDelete(obj any) {
	if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		r := recorded{kind: "tombstone", key: tombstone.Key}
		if cm, ok := tombstone.Obj.(*corev1.ConfigMap); ok {
			r.namespace, r.name = cm.Namespace, cm.Name
		}
		h.record(r)
		return
	}
	cm := obj.(*corev1.ConfigMap)
	h.record(recorded{kind: "delete", namespace: cm.Namespace, name: cm.Name})
}

func (h *recordingHandler) record(r recorded) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, r)
}

func (h *recordingHandler) snapshot() []recorded {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.events)
}

// has reports whether an event of that kind and name was recorded.
func (h *recordingHandler) has(kind, name string) bool {
	return slices.ContainsFunc(h.snapshot(), func(r recorded) bool { return r.kind == kind && r.name == name })
}

func configMap(ns, name, v string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"v": v}}
}

// startInformer runs a SharedIndexInformer over a fake source (with controller-runtime's namespace index) until the
// test ends, and waits for it to sync.
func startInformer(t *testing.T, objs ...*corev1.ConfigMap) (*fcache.FakeControllerSource, toolscache.SharedIndexInformer) {
	t.Helper()
	source := fcache.NewFakeControllerSource()
	for _, o := range objs {
		source.Add(o)
	}
	informer := toolscache.NewSharedIndexInformer(source, &corev1.ConfigMap{}, 0,
		toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		informer.Run(stop)
	}()
	t.Cleanup(func() {
		close(stop)
		<-done
		source.Shutdown()
	})
	if !toolscache.WaitForCacheSync(t.Context().Done(), informer.HasSynced) {
		t.Fatal("informer did not sync")
	}
	return source, informer
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 5*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// A handler added for a namespace first receives that namespace's stored objects as initial adds, then its live
// events, all presented with namespace "default"; it never sees another namespace's events, and the shared
// informer's objects keep their namespaces.
func TestMuxRoutesByNamespaceAndPresents(t *testing.T) {
	source, informer := startInformer(t, configMap("a", "a1", "1"), configMap("b", "b1", "1"))
	m := newInformerMux(informer)
	// The mux's own registration exists and has delivered the initial list, as once any virtual cluster watches
	// the kind. (A handler added while that initial list is still on its way may see an object twice.)
	if _, err := m.add("c", &recordingHandler{}, toolscache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "mux registration synced", func() bool { return m.reg.HasSynced() })

	h := &recordingHandler{}
	reg, err := m.add("a", h, toolscache.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := h.snapshot(); !slices.Equal(got, []recorded{{kind: "initial-add", namespace: "default", name: "a1", data: "1"}}) {
		t.Fatalf("replay: got %+v", got)
	}
	eventually(t, "registration synced", reg.HasSynced)

	source.Add(configMap("b", "b2", "1"))
	source.Add(configMap("a", "a2", "1"))
	source.Modify(configMap("a", "a1", "2"))
	source.Delete(configMap("a", "a2", "1"))
	eventually(t, "delete of a2", func() bool { return h.has("delete", "a2") })

	want := []recorded{
		{kind: "initial-add", namespace: "default", name: "a1", data: "1"},
		{kind: "add", namespace: "default", name: "a2", data: "1"},
		{kind: "update", namespace: "default", name: "a1", data: "2"},
		{kind: "delete", namespace: "default", name: "a2"},
	}
	if got := h.snapshot(); !slices.Equal(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for _, obj := range informer.GetStore().List() {
		if ns := obj.(*corev1.ConfigMap).Namespace; ns != "a" && ns != "b" {
			t.Fatalf("the shared store's object was changed: namespace %q", ns)
		}
	}
}

// Tombstones are routed by their object's namespace, or by their key when they carry no object, and presented.
func TestMuxPresentsTombstones(t *testing.T) {
	_, informer := startInformer(t)
	m := newInformerMux(informer)
	h := &recordingHandler{}
	if _, err := m.add("a", h, toolscache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	stale := configMap("a", "gone", "1")
	m.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "a/gone", Obj: stale})
	m.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "b/other", Obj: configMap("b", "other", "1")})
	m.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "a/keyonly"})

	want := []recorded{
		{kind: "tombstone", key: "default/gone", namespace: "default", name: "gone"},
		{kind: "tombstone", key: "default/keyonly"},
	}
	if got := h.snapshot(); !slices.Equal(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if stale.Namespace != "a" {
		t.Fatalf("the tombstone's object was changed: namespace %q", stale.Namespace)
	}
}

// Removing a handler stops its delivery and only its delivery; removing it again is a no-op; another namespace's
// registration cannot be removed.
func TestMuxRemove(t *testing.T) {
	source, informer := startInformer(t)
	m := newInformerMux(informer)
	removed, kept, other := &recordingHandler{}, &recordingHandler{}, &recordingHandler{}
	reg, err := m.add("a", removed, toolscache.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.add("a", kept, toolscache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	otherReg, err := m.add("b", other, toolscache.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}

	source.Add(configMap("a", "before", "1"))
	eventually(t, "add before removal", func() bool { return removed.has("add", "before") && kept.has("add", "before") })

	if err := m.remove("a", reg); err != nil {
		t.Fatal(err)
	}
	if err := m.remove("a", reg); err != nil {
		t.Fatalf("removing twice: %v", err)
	}
	if err := m.remove("a", otherReg); err == nil {
		t.Fatal("removing another namespace's registration succeeded")
	}

	// Delivery is ordered: once the kept handler has seen "after", the removed one would have seen it too.
	source.Add(configMap("a", "after", "1"))
	eventually(t, "add after removal", func() bool { return kept.has("add", "after") })
	if removed.has("add", "after") {
		t.Fatal("a removed handler received an event")
	}
	if len(other.snapshot()) != 0 {
		t.Fatalf("namespace b's handler saw namespace a's events: %+v", other.snapshot())
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if len(m.routes["a"]) != 1 {
		t.Fatalf("routes of a: %d registrations, want 1", len(m.routes["a"]))
	}
}

// However many namespaces have handlers, the shared informer has one registration: no goroutine per handler.
func TestMuxOneRegistrationForAllNamespaces(t *testing.T) {
	source, informer := startInformer(t)
	m := newInformerMux(informer)
	if _, err := m.add("warm-up", &recordingHandler{}, toolscache.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	handlers := make([]*recordingHandler, 500)
	for i := range handlers {
		handlers[i] = &recordingHandler{}
		if _, err := m.add(fmt.Sprintf("ns-%d", i), handlers[i], toolscache.HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// client-go would have started 1,000 goroutines for 500 registrations. Allow a handful of unrelated ones.
	if after := runtime.NumGoroutine(); after-before > 5 {
		t.Fatalf("goroutines grew from %d to %d for 500 scoped handlers", before, after)
	}
	for i := range handlers {
		source.Add(configMap(fmt.Sprintf("ns-%d", i), "cm", "1"))
	}
	for i, h := range handlers {
		eventually(t, "delivery", func() bool { return h.has("add", "cm") })
		if n := len(h.snapshot()); n != 1 {
			t.Fatalf("handler %d saw %d events, want 1", i, n)
		}
	}
}

// A handler added while its namespace's objects change concurrently misses nothing: its view ends equal to the
// store's. (Duplicates are allowed, losses are not.)
func TestMuxNoEventLostAroundReplay(t *testing.T) {
	for round := range 20 {
		source, informer := startInformer(t)
		m := newInformerMux(informer)
		// The mux's registration exists before the burst, as it does once any virtual cluster watches the kind.
		if _, err := m.add("other", &recordingHandler{}, toolscache.HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		const n = 200
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				source.Add(configMap("a", fmt.Sprintf("cm-%d", i), "1"))
				if i%3 == 0 {
					source.Delete(configMap("a", fmt.Sprintf("cm-%d", i), "1"))
				}
			}
			source.Add(configMap("a", "last", "1"))
		}()
		live := map[string]bool{}
		h := &recordingHandler{}
		if _, err := m.add("a", h, toolscache.HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		eventually(t, "the last add", func() bool { return h.has("add", "last") || h.has("initial-add", "last") })
		for _, r := range h.snapshot() {
			switch r.kind {
			case "add", "initial-add", "update":
				live[r.name] = true
			case "delete":
				delete(live, r.name)
			}
		}
		stored := map[string]bool{}
		for _, obj := range informer.GetStore().List() {
			stored[obj.(*corev1.ConfigMap).Name] = true
		}
		for name := range stored {
			if !live[name] {
				t.Fatalf("round %d: %s is in the store but the handler never saw it", round, name)
			}
		}
		for name := range live {
			if !stored[name] {
				t.Fatalf("round %d: the handler still sees %s, deleted from the store", round, name)
			}
		}
	}
}

// HasSynced waits for the replay and for the shared informer's initial list.
func TestMuxHasSynced(t *testing.T) {
	source := fcache.NewFakeControllerSource()
	source.Add(configMap("a", "a1", "1"))
	informer := toolscache.NewSharedIndexInformer(source, &corev1.ConfigMap{}, 0,
		toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc})
	m := newInformerMux(informer)
	h := &recordingHandler{}
	reg, err := m.add("a", h, toolscache.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if reg.HasSynced() {
		t.Fatal("synced before the informer ran")
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		informer.Run(stop)
	}()
	defer func() {
		close(stop)
		<-done
	}()
	eventually(t, "registration synced", reg.HasSynced)
	if !h.has("initial-add", "a1") {
		t.Fatalf("synced without the initial list: %+v", h.snapshot())
	}
}

// Indexers already on the shared informer are skipped, so several virtual clusters can add the same ones.
func TestMuxAddIndexersTwice(t *testing.T) {
	_, informer := startInformer(t)
	m := newInformerMux(informer)
	byData := toolscache.Indexers{"by-v": func(obj any) ([]string, error) {
		return []string{obj.(*corev1.ConfigMap).Data["v"]}, nil
	}}
	for range 2 {
		if err := m.addIndexers(byData); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.addIndexers(toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc}); err != nil {
		t.Fatal(err)
	}
}
