// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package handler

import (
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// mappedQueue presents a queue of `to` items as a queue of `from` items: everything added is converted with
// forward, everything taken out is converted back with backward. It is how a handler written for one request type
// feeds a controller whose queue holds another (for example, reconcile.Request into a multi-cluster queue).
// Handlers only add to their queue; Get, Done and Len see the whole controller queue, every cluster's items,
// converted, and are there only to satisfy the interface.
type mappedQueue[from, to comparable] struct {
	queue    workqueue.TypedRateLimitingInterface[to]
	forward  func(from) to
	backward func(to) from
}

// newMappedQueue returns a mapped queue; if q is a controller-runtime priority queue, the result is one too, so
// handlers that pass priorities keep doing so.
func newMappedQueue[from, to comparable](q workqueue.TypedRateLimitingInterface[to], forward func(from) to, backward func(to) from) workqueue.TypedRateLimitingInterface[from] {
	m := &mappedQueue[from, to]{queue: q, forward: forward, backward: backward}
	if pq, ok := q.(priorityqueue.PriorityQueue[to]); ok {
		return &mappedPriorityQueue[from, to]{mappedQueue: m, priorityQueue: pq}
	}
	return m
}

func (m *mappedQueue[from, to]) Add(item from) { m.queue.Add(m.forward(item)) }

func (m *mappedQueue[from, to]) Len() int { return m.queue.Len() }

func (m *mappedQueue[from, to]) Get() (from, bool) {
	item, shutdown := m.queue.Get()
	return m.backward(item), shutdown
}

func (m *mappedQueue[from, to]) Done(item from) { m.queue.Done(m.forward(item)) }

func (m *mappedQueue[from, to]) ShutDown() { m.queue.ShutDown() }

func (m *mappedQueue[from, to]) ShutDownWithDrain() { m.queue.ShutDownWithDrain() }

func (m *mappedQueue[from, to]) ShuttingDown() bool { return m.queue.ShuttingDown() }

func (m *mappedQueue[from, to]) AddAfter(item from, duration time.Duration) {
	m.queue.AddAfter(m.forward(item), duration)
}

func (m *mappedQueue[from, to]) AddRateLimited(item from) { m.queue.AddRateLimited(m.forward(item)) }

func (m *mappedQueue[from, to]) Forget(item from) { m.queue.Forget(m.forward(item)) }

func (m *mappedQueue[from, to]) NumRequeues(item from) int {
	return m.queue.NumRequeues(m.forward(item))
}

// mappedPriorityQueue is a mappedQueue over a priority queue.
type mappedPriorityQueue[from, to comparable] struct {
	*mappedQueue[from, to]
	priorityQueue priorityqueue.PriorityQueue[to]
}

var _ priorityqueue.PriorityQueue[string] = &mappedPriorityQueue[string, int]{}

func (m *mappedPriorityQueue[from, to]) AddWithOpts(o priorityqueue.AddOpts, items ...from) {
	mapped := make([]to, len(items))
	for i, item := range items {
		mapped[i] = m.forward(item)
	}
	m.priorityQueue.AddWithOpts(o, mapped...)
}

func (m *mappedPriorityQueue[from, to]) GetWithPriority() (from, int, bool) {
	item, priority, shutdown := m.priorityQueue.GetWithPriority()
	return m.backward(item), priority, shutdown
}
