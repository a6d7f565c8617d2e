// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package lifecycle

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Deleting an object of a member reaches the predicates and the handler of a watch as a delete event, carrying
// the deleted object (not a tombstone wrapper) with the name of its cluster, and the reconciler runs for it.
// (Tombstones, cache.DeletedFinalStateUnknown, are TestTombstoneReachesHandlerAndReconciler's.)
//
// A source that dropped deletes, or passed them on as updates, fails the first check; one that passed the
// informer's object through unchanged would hand predicates something other than the deleted object.
func TestDeleteEventsReachPredicatesAndHandlers(t *testing.T) {
	const ns = "lc-deletes"
	ensureNamespace(t, "member-0", ns)
	ensureNamespace(t, "member-1", ns)

	p := newTestProvider()
	mgr := newManager(t, p)
	log, predicateLog := &eventLog{}, &eventLog{}
	rec := harness.NewRecorder()
	err := mcbuilder.ControllerManagedBy(mgr).
		Named("deletes").
		Watches(&corev1.ConfigMap{}, log.handler(), mcbuilder.WithPredicates(predicate.Funcs{
			DeleteFunc: func(e event.DeleteEvent) bool {
				if _, ok := e.Object.(*corev1.ConfigMap); ok {
					predicateLog.add(seenEvent{Type: "Delete", Name: e.Object.GetName(), StateUnknown: e.DeleteStateUnknown})
				}
				return true
			},
		})).
		Complete(recordingReconciler(rec))
	if err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)
	for i, member := range []string{"member-0", "member-1"} {
		name := []string{"zero", "one"}[i]
		if err := p.Add(t.Context(), multicluster.ClusterName(name), memberCluster(t, member, ns, name), mgr); err != nil {
			t.Fatal(err)
		}
	}

	cm := createConfigMap(t, "member-0", ns, "doomed")
	createConfigMap(t, "member-1", ns, "doomed")
	harness.Eventually(t, 0, "the creation seen", func() bool {
		return log.count(seenEvent{Cluster: "zero", Type: "Create", Name: "doomed"}) == 1
	})
	reconcilesBefore := rec.Count("zero/doomed")

	if err := harness.Client(t, fleet, "member-0").Delete(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "the delete seen by the predicate and the handler", func() bool {
		return predicateLog.count(seenEvent{Type: "Delete", Name: "doomed"}) == 1 &&
			log.count(seenEvent{Cluster: "zero", Type: "Delete", Name: "doomed"}) == 1
	})
	harness.Eventually(t, 0, "the delete reconciled", func() bool { return rec.Count("zero/doomed") > reconcilesBefore })
	for _, e := range log.all() {
		if e.Type == "Delete" && (e.StateUnknown || e.Cluster != "zero") {
			t.Errorf("unexpected delete event %+v: want a delete of cluster zero with its final state known", e)
		}
		if e.Type == "Update" && e.Name == "doomed" {
			t.Errorf("the delete was seen as an update: %+v", e)
		}
	}
	if n := log.count(seenEvent{Cluster: "one", Type: "Delete"}); n != 0 {
		t.Errorf("a delete in member-0 reached the handler of cluster one %d times", n)
	}
	var stillThere corev1.ConfigMap
	if err := harness.Client(t, fleet, "member-1").Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "doomed"}, &stillThere); err != nil {
		t.Fatalf("the object of the same name in member-1: %v", err)
	}
}
