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
type fairOrder[request mcreconcile.ClusterAware[request]] struct {
	mu       sync.Mutex
	clusters map[multicluster.ClusterName]*clusterItems[request] // clusters with pending items
	ring     []*clusterItems[request]                            // the same clusters, in serving order
	next     int                                                 // index in ring of the cluster served next
	items    map[request]*pendingItem[request]                   // every pending item, of clusters and draining
	draining []*pendingItem[request]                             // items of forgotten clusters, served first
	seq      uint64                                              // counts the items becoming pending or raised

	// wanted is, per item, the highest priority asked for by adds that Push or Touch have not seen yet.
	wanted map[request]int
	// popped is, per item handed out, the priority it had, until GetWithPriority takes it; nil if not tracked.
	popped map[request]int

	// peakItems and peakPopped are the most entries items and popped held since they were last allocated: maps
	// never shrink, so once a burst has drained they are allocated anew (see releaseAfterBurst).
	peakItems, peakPopped int
}

// burstEntries is the size from which a drained map is allocated anew rather than kept for the next burst.
const burstEntries = 256

// pendingItem is an item in the order.
type pendingItem[request any] struct {
	item     request
	priority int
	seq      uint64
	index    int  // in its cluster's heap
	draining bool // its cluster was forgotten
}

// clusterItems are the pending items of one cluster, a heap by priority then seq.
type clusterItems[request any] struct {
	cluster multicluster.ClusterName
	heap    indexedHeap[*pendingItem[request]]
}

var _ workqueue.Queue[mcreconcile.Request] = &fairOrder[mcreconcile.Request]{}

// newFairOrder returns an empty order; trackPops makes Pop record the priority of what it hands out, for takePopped.
func newFairOrder[request mcreconcile.ClusterAware[request]](trackPops bool) *fairOrder[request] {
	o := &fairOrder[request]{
		clusters: map[multicluster.ClusterName]*clusterItems[request]{},
		items:    map[request]*pendingItem[request]{},
		wanted:   map[request]int{},
	}
	if trackPops {
		o.popped = map[request]int{}
	}
	return o
}

// want records that an add is about to ask for the item at priority; the next Push or Touch of the item takes
// the highest priority recorded.
func (o *fairOrder[request]) want(item request, priority int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if old, ok := o.wanted[item]; !ok || priority > old {
		o.wanted[item] = priority
	}
}

// absorb raises the priority of the item if it is pending, or of the add that is about to make it pending (want
// has been called for it), and reports whether it did: a delayed add of such an item adds nothing.
func (o *fairOrder[request]) absorb(item request, priority int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.items[item]; ok {
		o.raiseLocked(item, priority)
		return true
	}
	if old, ok := o.wanted[item]; ok {
		o.wanted[item] = max(old, priority)
		return true
	}
	return false
}

// Touch is called by the work queue when a pending item is added again: it takes the priority that add asked for,
// if higher than the item's.
func (o *fairOrder[request]) Touch(item request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if priority, ok := o.wanted[item]; ok {
		delete(o.wanted, item)
		o.raiseLocked(item, priority)
	}
}

// raiseLocked gives a pending item a higher priority; it then comes after the items that already had that
// priority, as if it had just been added.
func (o *fairOrder[request]) raiseLocked(item request, priority int) {
	it := o.items[item]
	if it == nil || it.draining || priority <= it.priority {
		return
	}
	it.priority = priority
	it.seq = o.nextSeq()
	o.clusters[item.Cluster()].heap.fix(it.index)
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
	priority := o.wanted[item]
	delete(o.wanted, item)

	name := item.Cluster()
	c, ok := o.clusters[name]
	if !ok {
		c = &clusterItems[request]{cluster: name, heap: indexedHeap[*pendingItem[request]]{less: pendingBefore[request]}}
		o.clusters[name] = c
		// The cluster joins the round just before the cluster served next, so it waits one full round at most.
		o.ring = slices.Insert(o.ring, o.next, c)
		o.next++
		if o.next >= len(o.ring) {
			o.next = 0
		}
	}
	it := &pendingItem[request]{item: item, priority: priority, seq: o.nextSeq()}
	o.items[item] = it
	o.peakItems = max(o.peakItems, len(o.items))
	c.heap.push(it)
}

// Len returns the number of pending items.
func (o *fairOrder[request]) Len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.items)
}

// Pop returns the next item: a forgotten cluster's item if there is one, else the first item of the cluster whose
// turn it is. The work queue calls it only when Len is not zero.
func (o *fairOrder[request]) Pop() request {
	o.mu.Lock()
	defer o.mu.Unlock()
	var it *pendingItem[request]
	switch {
	case len(o.draining) > 0:
		it = o.draining[0]
		o.draining[0] = nil
		o.draining = o.draining[1:]
	case len(o.ring) > 0:
		if o.next >= len(o.ring) {
			o.next = 0
		}
		c := o.ring[o.next]
		it = c.heap.pop()
		if c.heap.Len() == 0 {
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
	delete(o.items, it.item)
	if o.popped != nil {
		o.popped[it.item] = it.priority
		o.peakPopped = max(o.peakPopped, len(o.popped))
	}
	o.releaseAfterBurstLocked()
	return it.item
}

// releaseAfterBurstLocked allocates the order's maps and slices anew once a burst of at least burstEntries
// pending items has drained, so that an idle queue does not keep the room of its largest burst.
func (o *fairOrder[request]) releaseAfterBurstLocked() {
	if len(o.items) == 0 && o.peakItems >= burstEntries {
		o.items = map[request]*pendingItem[request]{}
		o.clusters = map[multicluster.ClusterName]*clusterItems[request]{}
		o.ring, o.next, o.draining = nil, 0, nil
		if len(o.wanted) == 0 {
			o.wanted = map[request]int{}
		}
		o.peakItems = 0
	}
	if o.popped != nil && len(o.popped) == 0 && o.peakPopped >= burstEntries {
		o.popped = map[request]int{}
		o.peakPopped = 0
	}
}

// takePopped returns the priority the item was handed out with, and forgets it.
func (o *fairOrder[request]) takePopped(item request) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	priority := o.popped[item]
	delete(o.popped, item)
	o.releaseAfterBurstLocked()
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
	items := c.heap.items
	slices.SortFunc(items, func(a, b *pendingItem[request]) int {
		if pendingBefore(a, b) {
			return -1
		}
		return 1
	})
	for _, it := range items {
		it.draining = true
		it.index = -1
	}
	o.draining = append(o.draining, items...)
	i := slices.Index(o.ring, c)
	o.ring = slices.Delete(o.ring, i, i+1)
	if o.next > i {
		o.next--
	}
	if o.next >= len(o.ring) {
		o.next = 0
	}
}

// pendingBefore orders pending items by priority, higher first, then by seq, lower first.
func pendingBefore[request any](a, b *pendingItem[request]) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	return a.seq < b.seq
}

func (it *pendingItem[request]) setHeapIndex(i int) { it.index = i }
