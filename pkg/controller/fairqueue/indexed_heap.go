// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package fairqueue

import "container/heap"

// heapElement is an element of an indexedHeap: a pointer that records where it stands in the heap.
type heapElement interface {
	comparable
	setHeapIndex(i int)
}

// indexedHeap is a binary heap of elements that know their index in it, so that one can be fixed or removed where
// it stands. less orders it: the element for which less holds against every other comes first. The zero value,
// with less set, is an empty heap. It implements heap.Interface for container/heap; use its own methods.
type indexedHeap[E heapElement] struct {
	items []E
	less  func(a, b E) bool
}

var _ heap.Interface = &indexedHeap[*delayedAdd[int]]{}

// push adds e.
func (h *indexedHeap[E]) push(e E) { heap.Push(h, e) }

// pop removes and returns the first element; the heap must not be empty.
func (h *indexedHeap[E]) pop() E { return heap.Pop(h).(E) }

// first returns the first element without removing it; the heap must not be empty.
func (h *indexedHeap[E]) first() E { return h.items[0] }

// fix restores the order after the element at index i changed.
func (h *indexedHeap[E]) fix(i int) { heap.Fix(h, i) }

// remove removes the element at index i.
func (h *indexedHeap[E]) remove(i int) { heap.Remove(h, i) }

// Len, Less, Swap, Push and Pop are heap.Interface, for container/heap only.

func (h *indexedHeap[E]) Len() int           { return len(h.items) }
func (h *indexedHeap[E]) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *indexedHeap[E]) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].setHeapIndex(i)
	h.items[j].setHeapIndex(j)
}

func (h *indexedHeap[E]) Push(x any) {
	e := x.(E)
	e.setHeapIndex(len(h.items))
	h.items = append(h.items, e)
}

func (h *indexedHeap[E]) Pop() any {
	var zero E
	last := len(h.items) - 1
	e := h.items[last]
	h.items[last] = zero
	h.items = h.items[:last]
	e.setHeapIndex(-1)
	return e
}
