// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package handler

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// queueRecorder is a single-cluster handler that records the queue each event handed it, and adds one request.
type queueRecorder struct {
	handler.TypedFuncs[*corev1.ConfigMap, reconcile.Request]
	seen []workqueue.TypedRateLimitingInterface[reconcile.Request]
}

func (r *queueRecorder) Generic(_ context.Context, _ event.TypedGenericEvent[*corev1.ConfigMap], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	r.seen = append(r.seen, q)
	q.Add(reconcile.Request{})
}

// sliceQueue is a controller queue whose dynamic type cannot be compared with ==.
type sliceQueue struct {
	workqueue.TypedRateLimitingInterface[mcreconcile.Request]
	_ []int
}

// TestClusterHandlerBuildsOneQueueViewPerQueue proves that a cluster's handler converts the controller queue once,
// not once per event, that a new queue gets a view of its own, and that a queue type that cannot be compared gets
// a working view for every event instead of a panic.
func TestClusterHandlerBuildsOneQueueViewPerQueue(t *testing.T) {
	newQueue := func() workqueue.TypedRateLimitingInterface[mcreconcile.Request] {
		q := workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[mcreconcile.Request](time.Millisecond, time.Millisecond))
		t.Cleanup(q.ShutDown)
		return q
	}
	rec := &queueRecorder{}
	h := TypedForCluster[*corev1.ConfigMap](rec, "one")
	ctx := t.Context()

	first, second := newQueue(), newQueue()
	h.Generic(ctx, event.TypedGenericEvent[*corev1.ConfigMap]{}, first)
	h.Generic(ctx, event.TypedGenericEvent[*corev1.ConfigMap]{}, first)
	h.Generic(ctx, event.TypedGenericEvent[*corev1.ConfigMap]{}, second)
	if rec.seen[0] != rec.seen[1] {
		t.Errorf("two events with the same queue saw two views of it")
	}
	if rec.seen[2] == rec.seen[0] {
		t.Errorf("an event with another queue saw the view of the first queue")
	}
	if first.Len() != 1 || second.Len() != 1 {
		t.Errorf("queue lengths = %d and %d, want 1 and 1: each view must add to its own queue", first.Len(), second.Len())
	}

	odd := sliceQueue{TypedRateLimitingInterface: newQueue()}
	for range 2 {
		h.Generic(ctx, event.TypedGenericEvent[*corev1.ConfigMap]{}, odd)
	}
	if odd.Len() != 1 {
		t.Errorf("queue of an incomparable type has %d requests, want 1", odd.Len())
	}
	if got := odd.TypedRateLimitingInterface.Len(); got != 1 {
		t.Errorf("inner queue has %d requests, want 1", got)
	}
}
