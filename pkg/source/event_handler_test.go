// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package source

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// deleteRecorder records the delete events its handler and predicate see.
type deleteRecorder struct {
	handled   []event.TypedDeleteEvent[*corev1.ConfigMap]
	predicted []event.TypedDeleteEvent[*corev1.ConfigMap]
	other     int
}

func (r *deleteRecorder) eventHandler(ctx context.Context) *eventHandler[*corev1.ConfigMap, string] {
	type queue = workqueue.TypedRateLimitingInterface[string]
	return &eventHandler[*corev1.ConfigMap, string]{
		ctx:         ctx,
		clusterName: "c",
		handler: handler.TypedFuncs[*corev1.ConfigMap, string]{
			CreateFunc:  func(context.Context, event.TypedCreateEvent[*corev1.ConfigMap], queue) { r.other++ },
			UpdateFunc:  func(context.Context, event.TypedUpdateEvent[*corev1.ConfigMap], queue) { r.other++ },
			GenericFunc: func(context.Context, event.TypedGenericEvent[*corev1.ConfigMap], queue) { r.other++ },
			DeleteFunc: func(_ context.Context, e event.TypedDeleteEvent[*corev1.ConfigMap], _ queue) {
				r.handled = append(r.handled, e)
			},
		},
		predicates: []predicate.TypedPredicate[*corev1.ConfigMap]{predicate.TypedFuncs[*corev1.ConfigMap]{
			DeleteFunc: func(e event.TypedDeleteEvent[*corev1.ConfigMap]) bool {
				r.predicted = append(r.predicted, e)
				return true
			},
		}},
	}
}

func TestOnDeleteUnwrapsTombstones(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gone"}}

	tests := []struct {
		name        string
		obj         any
		wantUnknown bool
	}{
		{name: "object", obj: cm, wantUnknown: false},
		{name: "tombstone", obj: toolscache.DeletedFinalStateUnknown{Key: "ns/gone", Obj: cm}, wantUnknown: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &deleteRecorder{}
			r.eventHandler(t.Context()).OnDelete(tt.obj)

			for what, got := range map[string][]event.TypedDeleteEvent[*corev1.ConfigMap]{"predicate": r.predicted, "handler": r.handled} {
				if len(got) != 1 {
					t.Fatalf("%s saw %d delete events, want 1", what, len(got))
				}
				if got[0].Object != cm {
					t.Errorf("%s got object %#v, want the deleted ConfigMap itself", what, got[0].Object)
				}
				if got[0].DeleteStateUnknown != tt.wantUnknown {
					t.Errorf("%s got DeleteStateUnknown=%v, want %v", what, got[0].DeleteStateUnknown, tt.wantUnknown)
				}
			}
			if r.other != 0 {
				t.Errorf("%d other events delivered for a delete", r.other)
			}
		})
	}
}

func TestOnDeleteDropsTombstonesOfOtherTypes(t *testing.T) {
	r := &deleteRecorder{}
	r.eventHandler(t.Context()).OnDelete(toolscache.DeletedFinalStateUnknown{
		Key: "ns/gone",
		Obj: &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gone"}},
	})
	if len(r.handled)+len(r.predicted)+r.other != 0 {
		t.Errorf("a tombstone of another type reached the predicate or handler: %+v", r)
	}
}

func TestOnDeleteAfterDisengageDeliversNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	r := &deleteRecorder{}
	h := r.eventHandler(ctx)
	cancel()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gone"}}
	h.OnDelete(cm)
	h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "ns/gone", Obj: cm})
	if len(r.handled)+len(r.predicted) != 0 {
		t.Errorf("deletes delivered after the cluster's context ended: %+v", r)
	}
}
