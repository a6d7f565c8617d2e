// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package fairqueue

import (
	"k8s.io/client-go/util/workqueue"

	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// entryQueue is the order as the workqueue.Queue of a work queue of entries (NewPriority's): the work queue adds
// an entry that acquire returned, and hands out entries that stay processing until finish.
type entryQueue[request mcreconcile.ClusterAware[request]] struct {
	order *fairOrder[request]
}

var _ workqueue.Queue[*entry[mcreconcile.Request]] = entryQueue[mcreconcile.Request]{}

// Push makes the entry pending; see fairOrder.pushLocked.
func (q entryQueue[request]) Push(e *entry[request]) {
	q.order.mu.Lock()
	defer q.order.mu.Unlock()
	q.order.pushLocked(e)
}

// Touch is called by the work queue when a pending entry is added again: it takes the priority that add asked for.
func (q entryQueue[request]) Touch(e *entry[request]) {
	q.order.mu.Lock()
	defer q.order.mu.Unlock()
	q.order.touchLocked(e)
}

// Len returns the number of pending entries.
func (q entryQueue[request]) Len() int { return q.order.Len() }

// Pop hands out the next entry (see fairOrder.popLocked), processing from now on, and records the priority it had.
// The work queue calls it only when Len is not zero.
func (q entryQueue[request]) Pop() *entry[request] {
	q.order.mu.Lock()
	defer q.order.mu.Unlock()
	if q.order.pending == 0 {
		return nil
	}
	e := q.order.popLocked()
	e.processing, e.handedOutAt = true, e.priority
	e.handOuts++
	return e
}

// acquire returns the item's entry for an add at priority, the one entry of the item until release: the add hands
// it to the work queue, whose Push or Touch takes the priority, then releases it.
func (o *fairOrder[request]) acquire(item request, priority int) *entry[request] {
	o.mu.Lock()
	defer o.mu.Unlock()
	e := o.entryLocked(item)
	o.wantLocked(e, priority)
	e.adds++
	return e
}

// release ends an add of the entry.
func (o *fairOrder[request]) release(e *entry[request]) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e.adds--
	o.dropIfIdleLocked(e)
}

// processingEntry returns the entry of the item if the work queue has handed it out and it is not finished, and
// which hand-out of the entry that is; nil otherwise.
func (o *fairOrder[request]) processingEntry(item request) (*entry[request], uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if e := o.entries[item]; e != nil && e.processing {
		return e, e.handOuts
	}
	return nil, 0
}

// finish records that the work queue is done with the given hand-out of the entry. If the work queue has made it
// pending again meanwhile, it stays; if it has handed it out again, that hand-out is still processing.
func (o *fairOrder[request]) finish(e *entry[request], handOut uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if e.handOuts == handOut {
		e.processing = false
	}
	o.dropIfIdleLocked(e)
}
