// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespaced_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/multicluster-runtime/pkg/namespaced"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// eventLog records "<event> <namespace>/<name>" for the objects a handler receives.
type eventLog struct {
	mu     sync.Mutex
	events []string
}

func (l *eventLog) OnAdd(obj any, _ bool) { l.add("add", obj) }
func (l *eventLog) OnUpdate(_, obj any)   { l.add("update", obj) }
func (l *eventLog) OnDelete(obj any) {
	if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	l.add("delete", obj)
}

func (l *eventLog) add(event string, obj any) {
	o := obj.(client.Object)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fmt.Sprintf("%s %s/%s", event, o.GetNamespace(), o.GetName()))
}

func (l *eventLog) has(event string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Contains(l.events, event)
}

func (l *eventLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

func scopedInformer(t *testing.T, vc *namespaced.Cluster, obj client.Object) *namespaced.Informer {
	t.Helper()
	informer, err := vc.GetCache().GetInformer(t.Context(), obj)
	if err != nil {
		t.Fatal(err)
	}
	scoped, ok := informer.(*namespaced.Informer)
	if !ok {
		t.Fatalf("GetInformer returned %T, want *namespaced.Informer", informer)
	}
	return scoped
}

// A scoped informer's handlers see only their namespace's events, presented in namespace "default"; removing a
// handler stops its delivery and nobody else's; a virtual cluster cannot remove another's handler nor the shared
// informer; indexers can be added by several virtual clusters; a cluster-scoped kind's events reach every virtual
// cluster unchanged.
func TestScopedInformerIsolation(t *testing.T) {
	c := hostClient(t)
	a, b := harness.UniqueName("inf-a"), harness.UniqueName("inf-b")
	harness.CreateNamespaces(t, hostClient(t), a, b)
	harness.CreateConfigMapWithClient(t, c, a, "existing", nil)
	host := newHost(t)
	vcA, vcB := host.NewCluster(a), host.NewCluster(b)
	infA, infB := scopedInformer(t, vcA, &corev1.ConfigMap{}), scopedInformer(t, vcB, &corev1.ConfigMap{})

	removedLog, keptLog, bLog := &eventLog{}, &eventLog{}, &eventLog{}
	removed, err := infA.AddEventHandler(removedLog)
	if err != nil {
		t.Fatal(err)
	}
	kindInformer, err := vcA.GetCache().GetInformerForKind(t.Context(), corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	if err != nil {
		t.Fatal(err)
	}
	kept, err := kindInformer.AddEventHandler(keptLog)
	if err != nil {
		t.Fatal(err)
	}
	bReg, err := infB.AddEventHandlerWithOptions(bLog, toolscache.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, reg := range []toolscache.ResourceEventHandlerRegistration{removed, kept, bReg} {
		harness.Eventually(t, harness.ShortWait, "handler synced", reg.HasSynced)
	}
	if !removedLog.has("add default/existing") {
		t.Fatalf("the existing object was not replayed: %v", removedLog.all())
	}

	harness.CreateConfigMapWithClient(t, c, a, "x", nil)
	harness.CreateConfigMapWithClient(t, c, b, "y", nil)
	if err := c.Delete(t.Context(), harness.ConfigMap(a, "x", nil)); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, harness.ShortWait, "a's events", func() bool { return keptLog.has("delete default/x") && removedLog.has("delete default/x") })
	harness.Eventually(t, harness.ShortWait, "b's events", func() bool { return bLog.has("add default/y") })
	for _, log := range []*eventLog{removedLog, keptLog} {
		for _, e := range log.all() {
			if e != "add default/existing" && e != "add default/x" && e != "delete default/x" {
				t.Fatalf("a's handler received %q", e)
			}
		}
	}
	if slices.ContainsFunc(bLog.all(), func(e string) bool { return e != "add default/y" }) {
		t.Fatalf("b's handler received other events: %v", bLog.all())
	}

	if err := infA.RemoveEventHandler(bReg); err == nil {
		t.Fatal("a virtual cluster removed another virtual cluster's handler")
	}
	if err := infA.RemoveEventHandler(removed); err != nil {
		t.Fatal(err)
	}
	if err := vcA.GetCache().RemoveInformer(t.Context(), &corev1.ConfigMap{}); err != nil {
		t.Fatal(err)
	}
	harness.CreateConfigMapWithClient(t, c, a, "after", nil)
	harness.CreateConfigMapWithClient(t, c, b, "after", nil)
	harness.Eventually(t, harness.ShortWait, "events after the removals", func() bool {
		return keptLog.has("add default/after") && bLog.has("add default/after")
	})
	if removedLog.has("add default/after") {
		t.Fatal("a removed handler received an event")
	}

	byOwner := toolscache.Indexers{"test-owner": func(obj any) ([]string, error) {
		return []string{obj.(client.Object).GetLabels()["owner"]}, nil
	}}
	for _, informer := range []*namespaced.Informer{infA, infB, infA} {
		if err := informer.AddIndexers(byOwner); err != nil {
			t.Fatalf("adding the same indexers again: %v", err)
		}
	}

	// Cluster-scoped: Namespaces, as they are, in every virtual cluster.
	nsLog := &eventLog{}
	nsReg, err := scopedInformer(t, vcA, &corev1.Namespace{}).AddEventHandler(nsLog)
	if err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, harness.ShortWait, "namespace handler synced", nsReg.HasSynced)
	if !nsLog.has("add /"+b) || !nsLog.has("add /"+metav1.NamespaceSystem) {
		t.Fatalf("a virtual cluster's Namespace handler lacks the shared cluster's namespaces")
	}
}
