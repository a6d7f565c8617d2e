// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package fairqueue

import (
	"slices"
	"sync"

	"k8s.io/client-go/util/workqueue"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// fairOrder is the order in which a client-go work queue hands out its pending items: each cluster's pending
// items by priority (higher first), then in the order they became pending (or were raised to their priority);
// the clusters with pending items are served round-robin, one item per turn. Items of forgotten clusters go before
// everything else.
//
// Every item the order knows has one entry in entries, and a cluster's pending items are first-in-first-out lists,
// one per priority, so that neither a push nor a pop compares items. The order serves two kinds of work queue:
//
//   - New's work queue holds the requests themselves: fairOrder is its workqueue.Queue, and an entry lives while
//     its request is pending.
//   - NewPriority's queue (fairPriorityQueue) is built on the order itself, under mu: the entry is the request's one
//     identity from its first add until it has been processed, and records what a work queue keeps in sets (pending,
//     processing, added again while processing: wanted) and the times of the metrics.
//
// A work queue calls Push, Pop, Len and Touch under its own lock, and never has the same item twice in its order.
// The other methods come from elsewhere, hence mu.
type fairOrder[request mcreconcile.ClusterAware[request]] struct {
	mu       sync.Mutex
	clusters map[multicluster.ClusterName]*clusterItems[request] // clusters with pending items
	ring     []*clusterItems[request]                            // the same clusters, in serving order
	next     int                                                 // index in ring of the cluster served next
	entries  map[request]*entry[request]                         // every item the order knows
	pending  int                                                 // how many entries are pending
	draining []*entry[request]                                   // pending items of forgotten clusters, served first
	seq      uint64                                              // counts the items becoming pending or raised

	// peakEntries is the most entries held since entries was last allocated: maps never shrink, so once a burst
	// has drained it is allocated anew (see releaseAfterBurstLocked).
	peakEntries int
}

// burstEntries is the size from which a drained map is allocated anew rather than kept for the next burst.
const burstEntries = 256

// entry is what the order knows of an item. It leaves entries once it is neither wanted, pending nor processed.
type entry[request any] struct {
	item request

	// wanted is set while an add has asked for the item at wantedPrio (the highest asked for) and Push has not
	// taken it yet: in NewPriority's queue, while the item was added again during its processing.
	wanted     bool
	wantedPrio int

	pending  bool
	priority int
	seq      uint64 // when it became pending or was raised; its place in its cluster's list of its priority
	draining bool   // its cluster was forgotten

	// processing is set from the time NewPriority's queue hands the entry out until it is done with it;
	// processingIndex is then its place in the queue's list of processed entries.
	processing      bool
	processingIndex int

	// times are the metrics' times of the item, in NewPriority's queue.
	times metricTimes
}

var _ workqueue.Queue[mcreconcile.Request] = &fairOrder[mcreconcile.Request]{}

// newFairOrder returns an empty order.
func newFairOrder[request mcreconcile.ClusterAware[request]]() *fairOrder[request] {
	return &fairOrder[request]{
		clusters: map[multicluster.ClusterName]*clusterItems[request]{},
		entries:  map[request]*entry[request]{},
	}
}

// entryLocked returns the item's entry, adding one if the order does not know the item.
func (o *fairOrder[request]) entryLocked(item request) *entry[request] {
	e := o.entries[item]
	if e == nil {
		e = &entry[request]{item: item}
		o.entries[item] = e
		o.peakEntries = max(o.peakEntries, len(o.entries))
	}
	return e
}

// dropIfIdleLocked removes the entry once it is neither wanted, pending nor processed.
func (o *fairOrder[request]) dropIfIdleLocked(e *entry[request]) {
	if !e.wanted && !e.pending && !e.processing {
		delete(o.entries, e.item)
		o.releaseAfterBurstLocked()
	}
}

// releaseAfterBurstLocked allocates the order's map and slices anew once a burst of at least burstEntries items
// has drained, so that an idle queue does not keep the room of its largest burst.
func (o *fairOrder[request]) releaseAfterBurstLocked() {
	if len(o.entries) == 0 && o.peakEntries >= burstEntries {
		o.entries = map[request]*entry[request]{}
		o.clusters = map[multicluster.ClusterName]*clusterItems[request]{}
		o.ring, o.next, o.draining = nil, 0, nil
		o.peakEntries = 0
	}
}

// wantLocked records that an add asks for the entry at priority; the next push takes the highest priority
// recorded.
func (o *fairOrder[request]) wantLocked(e *entry[request], priority int) {
	if !e.wanted || priority > e.wantedPrio {
		e.wanted, e.wantedPrio = true, priority
	}
}

// absorbLocked raises the priority of the item if it is pending, or of the add that is to make it pending again
// (one has asked for it while it was processed), and reports whether it did: a delayed add of such an item adds
// nothing.
func (o *fairOrder[request]) absorbLocked(item request, priority int) bool {
	e := o.entries[item]
	switch {
	case e == nil:
		return false
	case e.pending:
		o.raiseLocked(e, priority)
		return true
	case e.wanted:
		e.wantedPrio = max(e.wantedPrio, priority)
		return true
	}
	return false
}

// raiseLocked gives a pending item a higher priority; it then comes after the items that already had that
// priority, as if it had just been added.
func (o *fairOrder[request]) raiseLocked(e *entry[request], priority int) {
	if !e.pending || e.draining || priority <= e.priority {
		return
	}
	e.priority = priority
	e.seq = o.nextSeq()
	o.clusters[e.item.Cluster()].raise(e)
}

func (o *fairOrder[request]) nextSeq() uint64 {
	o.seq++
	return o.seq
}

// pushLocked makes the entry pending at the priority wanted for it (0 if none); a cluster that had nothing pending
// joins the end of the round.
func (o *fairOrder[request]) pushLocked(e *entry[request]) {
	priority := 0
	if e.wanted {
		priority, e.wanted = e.wantedPrio, false
	}
	name := e.item.Cluster()
	c, ok := o.clusters[name]
	if !ok {
		c = &clusterItems[request]{cluster: name}
		o.clusters[name] = c
		// The cluster joins the round just before the cluster served next, so it waits one full round at most.
		o.ring = slices.Insert(o.ring, o.next, c)
		o.next++
		if o.next >= len(o.ring) {
			o.next = 0
		}
	}
	e.pending, e.draining = true, false
	e.priority, e.seq = priority, o.nextSeq()
	o.pending++
	c.push(e)
}

// popLocked takes the next entry: a forgotten cluster's if there is one, else the first of the cluster whose turn
// it is. There must be a pending entry.
func (o *fairOrder[request]) popLocked() *entry[request] {
	var e *entry[request]
	if len(o.draining) > 0 {
		e = o.draining[0]
		o.draining[0] = nil
		o.draining = o.draining[1:]
	} else {
		if o.next >= len(o.ring) {
			o.next = 0
		}
		c := o.ring[o.next]
		e = c.pop()
		if c.live == 0 {
			// Empty: leave the round; the next cluster moves into this slot.
			o.ring = slices.Delete(o.ring, o.next, o.next+1)
			delete(o.clusters, c.cluster)
		} else {
			o.next++
		}
		if o.next >= len(o.ring) {
			o.next = 0
		}
	}
	e.pending = false
	o.pending--
	return e
}

// Push adds an item; see pushLocked.
func (o *fairOrder[request]) Push(item request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pushLocked(o.entryLocked(item))
}

// Touch is called by the work queue when a pending item is added again: it keeps its place, first in first out.
func (o *fairOrder[request]) Touch(request) {}

// Len returns the number of pending items.
func (o *fairOrder[request]) Len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.pending
}

// Pop returns the next item (see popLocked), or the zero request if none is pending.
func (o *fairOrder[request]) Pop() request {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pending == 0 {
		var zero request
		return zero
	}
	e := o.popLocked()
	o.dropIfIdleLocked(e)
	return e.item
}

// forgetCluster moves the cluster's pending items to the draining list, served before anything else.
func (o *fairOrder[request]) forgetCluster(name multicluster.ClusterName) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.forgetClusterLocked(name)
}

// forgetClusterLocked is forgetCluster, under mu.
func (o *fairOrder[request]) forgetClusterLocked(name multicluster.ClusterName) {
	c, ok := o.clusters[name]
	if !ok {
		return
	}
	delete(o.clusters, name)
	for c.live > 0 {
		e := c.pop()
		e.draining = true
		o.draining = append(o.draining, e)
	}
	i := slices.Index(o.ring, c)
	o.ring = slices.Delete(o.ring, i, i+1)
	if o.next > i {
		o.next--
	}
	if o.next >= len(o.ring) {
		o.next = 0
	}
}
