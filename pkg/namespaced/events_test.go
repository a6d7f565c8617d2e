// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespaced_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// waitForTested lists the Events of the real namespace of the fixture's cluster into list until one of items() has
// the reason "Tested", and returns it.
func waitForTested[E any](t *testing.T, f *verbsFixture, list client.ObjectList, items func() []E, reason func(E) string) E {
	t.Helper()
	var found E
	harness.Eventually(t, harness.ShortWait, "the event in "+f.a, func() bool {
		if err := f.host.List(t.Context(), list, client.InNamespace(f.a)); err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(items(), func(e E) bool { return reason(e) == "Tested" })
		if i >= 0 {
			found = items()[i]
		}
		return i >= 0
	})
	return found
}

// A virtual cluster's event recorder creates Events in its real namespace, about the real object; an event about
// an object of another namespace is dropped.
func TestEventRecorderWritesIntoTheRealNamespace(t *testing.T) {
	f := newVerbsFixture(t, "events")
	ctx := t.Context()
	obj := harness.ConfigMap(metav1.NamespaceDefault, "subject", nil)
	if err := f.vc.GetClient().Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	recorder := f.vc.GetEventRecorderFor("events-test")
	recorder.Event(harness.ConfigMap(f.b, "subject", nil), corev1.EventTypeWarning, "Escaped", "must be dropped")
	recorder.Eventf(obj, corev1.EventTypeNormal, "Tested", "hello %s", "world")
	presented(t, "the recorded object", obj)

	events := &corev1.EventList{}
	found := waitForTested(t, f, events, func() []corev1.Event { return events.Items }, func(e corev1.Event) string { return e.Reason })
	if found.InvolvedObject.Namespace != f.a || found.InvolvedObject.Name != "subject" || found.InvolvedObject.UID != obj.UID {
		t.Fatalf("the event refers to %+v, want the real object %s/subject", found.InvolvedObject, f.a)
	}
	if found.Message != "hello world" {
		t.Fatalf("message %q", found.Message)
	}
	escaped := &corev1.EventList{}
	if err := f.host.List(ctx, escaped, client.InNamespace(f.b)); err != nil {
		t.Fatal(err)
	}
	for _, e := range escaped.Items {
		if e.Reason == "Escaped" {
			t.Fatalf("an event about another namespace's object was recorded: %+v", e)
		}
	}
}

// A virtual cluster's recorder of the events.k8s.io/v1 API (GetEventRecorder, controller-runtime's events API)
// creates Events in its real namespace, regarding and related to the real objects; an event whose regarding or
// related object is in another namespace is dropped.
func TestEventsRecorderWritesIntoTheRealNamespace(t *testing.T) {
	f := newVerbsFixture(t, "newevents")
	ctx := t.Context()
	subject := harness.ConfigMap(metav1.NamespaceDefault, "subject", nil)
	related := harness.ConfigMap("", "related", nil)
	for _, obj := range []*corev1.ConfigMap{subject, related} {
		if err := f.vc.GetClient().Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	recorder := f.vc.GetEventRecorder("events-test")
	recorder.Eventf(harness.ConfigMap(f.b, "subject", nil), nil, corev1.EventTypeWarning, "Escaped", "Test", "must be dropped")
	recorder.Eventf(subject, harness.ConfigMap(f.b, "related", nil), corev1.EventTypeWarning, "EscapedRelated", "Test", "must be dropped")
	recorder.Eventf(subject, related, corev1.EventTypeNormal, "Tested", "Test", "hello %s", "world")
	presented(t, "the regarding object", subject)
	presented(t, "the related object", related)

	events := &eventsv1.EventList{}
	found := waitForTested(t, f, events, func() []eventsv1.Event { return events.Items }, func(e eventsv1.Event) string { return e.Reason })
	if found.Regarding.Namespace != f.a || found.Regarding.Name != "subject" || found.Regarding.UID != subject.UID {
		t.Errorf("the event regards %+v, want the real object %s/subject", found.Regarding, f.a)
	}
	if found.Related == nil || found.Related.Namespace != f.a || found.Related.Name != "related" {
		t.Errorf("the event is related to %+v, want the real object %s/related", found.Related, f.a)
	}
	if found.Note != "hello world" || found.ReportingController != "events-test" {
		t.Errorf("note %q, reporting controller %q", found.Note, found.ReportingController)
	}
	for _, ns := range []string{f.a, f.b, metav1.NamespaceDefault} {
		events := &eventsv1.EventList{}
		if err := f.host.List(ctx, events, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		for _, e := range events.Items {
			if e.Reason == "Escaped" || e.Reason == "EscapedRelated" {
				t.Errorf("an event about another namespace's object was recorded in %s: %+v", ns, e)
			}
		}
	}
}
