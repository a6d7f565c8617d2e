package namespaced_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

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

	var found eventsv1.Event
	harness.Eventually(t, harness.ShortWait, "the event in "+f.a, func() bool {
		events := &eventsv1.EventList{}
		if err := f.host.List(ctx, events, client.InNamespace(f.a)); err != nil {
			t.Fatal(err)
		}
		for _, e := range events.Items {
			if e.Reason == "Tested" {
				found = e
				return true
			}
		}
		return false
	})
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
