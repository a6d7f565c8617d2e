// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package handler

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// tagged is a queue item in a "cluster".
type tagged struct {
	cluster string
	key     string
}

func newTestMappedQueue(q workqueue.TypedRateLimitingInterface[tagged]) workqueue.TypedRateLimitingInterface[string] {
	return newMappedQueue(q,
		func(key string) tagged { return tagged{cluster: "c", key: key} },
		func(t tagged) string { return t.key },
	)
}

func TestMappedQueuePassesThrough(t *testing.T) {
	inner := workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[tagged](time.Millisecond, time.Millisecond))
	t.Cleanup(inner.ShutDown)
	m := newTestMappedQueue(inner)

	if _, ok := m.(priorityqueue.PriorityQueue[string]); ok {
		t.Fatalf("mapped queue over %T is a priority queue", inner)
	}

	m.Add("a")
	if got := inner.Len(); got != 1 || m.Len() != 1 {
		t.Fatalf("Len() = %d (inner %d) after Add, want 1", m.Len(), got)
	}
	item, shutdown := m.Get()
	if item != "a" || shutdown {
		t.Fatalf("Get() = (%q, %v), want (%q, false)", item, shutdown, "a")
	}
	m.Done(item)

	m.AddRateLimited("b")
	m.AddRateLimited("b")
	if got := m.NumRequeues("b"); got != 2 {
		t.Errorf("NumRequeues(b) = %d, want 2", got)
	}
	if got := inner.NumRequeues(tagged{"c", "b"}); got != 2 {
		t.Errorf("inner NumRequeues = %d, want 2", got)
	}
	m.Forget("b")
	if got := inner.NumRequeues(tagged{"c", "b"}); got != 0 {
		t.Errorf("inner NumRequeues after Forget = %d, want 0", got)
	}

	m.AddAfter("c", time.Millisecond)
	if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
		return inner.Len() == 2, nil
	}); err != nil {
		t.Fatalf("AddRateLimited and AddAfter items never became ready: Len() = %d", inner.Len())
	}
	for range 2 {
		got, _ := inner.Get()
		if got.cluster != "c" {
			t.Errorf("inner queue got %+v, want cluster %q", got, "c")
		}
		inner.Done(got)
	}

	if m.ShuttingDown() {
		t.Fatal("ShuttingDown() before ShutDown")
	}
	m.ShutDown()
	if !m.ShuttingDown() || !inner.ShuttingDown() {
		t.Error("ShutDown did not shut the inner queue down")
	}
}

func TestMappedQueueShutDownWithDrain(t *testing.T) {
	inner := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[tagged]())
	m := newTestMappedQueue(inner)
	m.ShutDownWithDrain()
	if !inner.ShuttingDown() {
		t.Error("ShutDownWithDrain did not shut the inner queue down")
	}
}

func TestMappedPriorityQueue(t *testing.T) {
	inner := priorityqueue.New[tagged]("mchandler-test-mapped-priority-queue")
	t.Cleanup(inner.ShutDown)
	m := newTestMappedQueue(inner)

	pq, ok := m.(priorityqueue.PriorityQueue[string])
	if !ok {
		t.Fatalf("mapped queue over a priority queue is not one: %T", m)
	}
	low, high := -1, 1
	pq.AddWithOpts(priorityqueue.AddOpts{Priority: &low}, "low")
	pq.AddWithOpts(priorityqueue.AddOpts{Priority: &high}, "high-1", "high-2")

	got := make([]string, 0, 3)
	priorities := make([]int, 0, 3)
	for range 3 {
		item, priority, shutdown := pq.GetWithPriority()
		if shutdown {
			t.Fatal("queue shut down")
		}
		pq.Done(item)
		got = append(got, item)
		priorities = append(priorities, priority)
	}
	if got[0] == "low" || got[1] == "low" || got[2] != "low" {
		t.Errorf("items came out as %v, want the low-priority one last", got)
	}
	if priorities[2] != low || priorities[0] != high || priorities[1] != high {
		t.Errorf("priorities = %v, want [%d %d %d]", priorities, high, high, low)
	}
}
