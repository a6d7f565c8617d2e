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

// New returns a queue that is fair across clusters and first in first out within each cluster, without
// priorities: client-go's rate-limiting work queue (with its deduplication of pending requests, rate-limited
// requeues, delayed adds, the guarantee that no request is handed to two workers at once, and the workqueue
// metrics under controllerName), whose pending requests are served fairly across clusters: each cluster with
// pending requests gets one turn per round, so a cluster with a deep backlog gets its share of the workers, not
// all of them, and a cluster that had nothing pending waits at most one round. Requests of a cluster that has been
// disengaged (ForgetCluster) are handed out first, and the controller drops them without reconciling.
//
// It is the queue of multi-cluster controllers whose UsePriorityQueue option is false. Their default is
// NewPriority, which is as fair across clusters and also honours priorities within each cluster.
func New[request mcreconcile.ClusterAware[request]](controllerName string, rateLimiter workqueue.TypedRateLimiter[request]) workqueue.TypedRateLimitingInterface[request] {
	order := newFairOrder[request](false)
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(rateLimiter, workqueue.TypedRateLimitingQueueConfig[request]{
		Name: controllerName,
		DelayingQueue: workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[request]{
			Name: controllerName,
			Queue: workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[request]{
				Name:  controllerName,
				Queue: order,
			}),
		}),
	})
	return &fairQueue[request]{TypedRateLimitingInterface: queue, order: order}
}

// ClusterForgetter is implemented by the queues of this package, which can let go of a cluster's pending requests.
// The controllers of pkg/controller call ForgetCluster when a cluster is disengaged.
type ClusterForgetter interface {
	// ForgetCluster moves the cluster's pending requests to the front of the queue, for the controller to drop
	// them without reconciling, and drops its delayed adds.
	ForgetCluster(clusterName multicluster.ClusterName)
}

// fairQueue is the queue returned by New.
type fairQueue[request mcreconcile.ClusterAware[request]] struct {
	workqueue.TypedRateLimitingInterface[request]
	order *fairOrder[request]
}

// ForgetCluster moves the cluster's pending requests to the front of the queue, to be dropped.
func (q *fairQueue[request]) ForgetCluster(clusterName multicluster.ClusterName) {
	q.order.forgetCluster(clusterName)
}

// fairOrder is the order in which a client-go work queue hands out its pending items: each cluster's pending
// items by priority (higher first), then in the order they became pending (or were raised to their priority);
// the clusters with pending items are served round-robin, one item per turn. Items of forgotten clusters go before
// everything else.
//
// The work queue calls Push, Pop, Len and Touch under its own lock, and never has the same item twice in its
// order. The other methods come from elsewhere, hence mu; they never call the work queue.
//
// Priorities reach Push and Touch through want: the work queue's Add knows nothing of them.
//
// Every item the order knows has one entry in entries, from the first add that asks for it until it has been
// handed out and its priority taken: a request costs one map insert, one lookup and one delete on its way through
// the order, and a cluster's pending items are first-in-first-out lists, one per priority, so that neither a push
// nor a pop compares items.
type fairOrder[request mcreconcile.ClusterAware[request]] struct {
	mu       sync.Mutex
	clusters map[multicluster.ClusterName]*clusterItems[request] // clusters with pending items
	ring     []*clusterItems[request]                            // the same clusters, in serving order
	next     int                                                 // index in ring of the cluster served next
	entries  map[request]*entry[request]                         // every item wanted, pending or handed out
	pending  int                                                 // how many entries are pending
	draining []*entry[request]                                   // pending items of forgotten clusters, served first
	seq      uint64                                              // counts the items becoming pending or raised

	// trackPops makes Pop record the priority of what it hands out, until takePopped takes it.
	trackPops bool

	// peakEntries is the most entries held since entries was last allocated: maps never shrink, so once a burst
	// has drained it is allocated anew (see releaseAfterBurstLocked).
	peakEntries int
}

// burstEntries is the size from which a drained map is allocated anew rather than kept for the next burst.
const burstEntries = 256

// entry is what the order knows of an item. An entry can be wanted (an add asked for a priority that Push or
// Touch has not seen yet), pending (in its cluster's lists, or draining) and handed out (its priority not taken
// yet) at once; it leaves entries when it is none of them.
type entry[request any] struct {
	item request

	wanted     bool
	wantedPrio int

	pending  bool
	priority int
	seq      uint64 // when it became pending or was raised; its place in its cluster's list of its priority
	draining bool   // its cluster was forgotten

	popped     bool
	poppedPrio int
}

// newFairOrder returns an empty order; trackPops makes Pop record the priority of what it hands out, for takePopped.
func newFairOrder[request mcreconcile.ClusterAware[request]](trackPops bool) *fairOrder[request] {
	return &fairOrder[request]{
		clusters:  map[multicluster.ClusterName]*clusterItems[request]{},
		entries:   map[request]*entry[request]{},
		trackPops: trackPops,
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

// dropIfIdleLocked removes the entry once it is neither wanted, pending nor handed out.
func (o *fairOrder[request]) dropIfIdleLocked(e *entry[request]) {
	if !e.wanted && !e.pending && !e.popped {
		delete(o.entries, e.item)
		o.releaseAfterBurstLocked()
	}
}

// want records that an add is about to ask for the item at priority; the next Push or Touch of the item takes
// the highest priority recorded.
func (o *fairOrder[request]) want(item request, priority int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e := o.entryLocked(item)
	if !e.wanted || priority > e.wantedPrio {
		e.wanted, e.wantedPrio = true, priority
	}
}

// absorb raises the priority of the item if it is pending, or of the add that is about to make it pending (want
// has been called for it), and reports whether it did: a delayed add of such an item adds nothing.
func (o *fairOrder[request]) absorb(item request, priority int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
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

// Touch is called by the work queue when a pending item is added again: it takes the priority that add asked for,
// if higher than the item's.
func (o *fairOrder[request]) Touch(item request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if e := o.entries[item]; e != nil && e.wanted {
		e.wanted = false
		o.raiseLocked(e, e.wantedPrio)
	}
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

// Push adds an item at the priority wanted for it (0 if none); a cluster that had nothing pending joins the end of
// the round.
func (o *fairOrder[request]) Push(item request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e := o.entryLocked(item)
	priority := 0
	if e.wanted {
		priority, e.wanted = e.wantedPrio, false
	}

	name := item.Cluster()
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

// Len returns the number of pending items.
func (o *fairOrder[request]) Len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.pending
}

// Pop returns the next item: a forgotten cluster's item if there is one, else the first item of the cluster whose
// turn it is. The work queue calls it only when Len is not zero.
func (o *fairOrder[request]) Pop() request {
	o.mu.Lock()
	defer o.mu.Unlock()
	var e *entry[request]
	switch {
	case len(o.draining) > 0:
		e = o.draining[0]
		o.draining[0] = nil
		o.draining = o.draining[1:]
	case len(o.ring) > 0:
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
	default:
		var zero request
		return zero
	}
	e.pending = false
	o.pending--
	if o.trackPops {
		e.popped, e.poppedPrio = true, e.priority
	}
	item := e.item
	o.dropIfIdleLocked(e)
	return item
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

// takePopped returns the priority the item was handed out with, and forgets it.
func (o *fairOrder[request]) takePopped(item request) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	e := o.entries[item]
	if e == nil || !e.popped {
		return 0
	}
	e.popped = false
	priority := e.poppedPrio
	o.dropIfIdleLocked(e)
	return priority
}

// forgetCluster moves the cluster's pending items to the draining list, served before anything else.
func (o *fairOrder[request]) forgetCluster(name multicluster.ClusterName) {
	o.mu.Lock()
	defer o.mu.Unlock()
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
