package controller

import (
	"sync"

	"k8s.io/client-go/util/workqueue"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// NewFairQueue returns the default queue of multi-cluster controllers: client-go's rate-limiting work queue (with
// its deduplication of pending requests, rate-limited requeues, delayed adds, the guarantee that no request is
// handed to two workers at once, and the workqueue metrics under controllerName), whose pending requests are
// served fairly across clusters: each cluster with pending requests gets one turn per round, so a cluster with a
// deep backlog gets its share of the workers, not all of them. Requests of a cluster that has been disengaged
// (ForgetCluster) are handed out first, and the controller drops them without reconciling.
//
// To turn fairness off, set the controller's UsePriorityQueue option (controller-runtime's priority queue) or
// NewQueue to NewFIFOQueue.
func NewFairQueue[request mcreconcile.ClusterAware[request]](controllerName string, rateLimiter workqueue.TypedRateLimiter[request]) workqueue.TypedRateLimitingInterface[request] {
	fifo := newFairFIFO[request]()
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(rateLimiter, workqueue.TypedRateLimitingQueueConfig[request]{
		Name: controllerName,
		DelayingQueue: workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[request]{
			Name: controllerName,
			Queue: workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[request]{
				Name:  controllerName,
				Queue: fifo,
			}),
		}),
	})
	return &fairQueue[request]{TypedRateLimitingInterface: queue, fifo: fifo}
}

// NewFIFOQueue returns controller-runtime's default queue: client-go's rate-limiting work queue, first in first
// out across all clusters.
func NewFIFOQueue[request comparable](controllerName string, rateLimiter workqueue.TypedRateLimiter[request]) workqueue.TypedRateLimitingInterface[request] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(rateLimiter, workqueue.TypedRateLimitingQueueConfig[request]{
		Name: controllerName,
	})
}

// clusterForgetter is implemented by queues that can let go of a cluster's pending requests.
type clusterForgetter interface {
	ForgetCluster(clusterName multicluster.ClusterName)
}

// fairQueue is the queue returned by NewFairQueue.
type fairQueue[request mcreconcile.ClusterAware[request]] struct {
	workqueue.TypedRateLimitingInterface[request]
	fifo *fairFIFO[request]
}

// ForgetCluster moves the cluster's pending requests to the front of the queue, to be dropped.
func (q *fairQueue[request]) ForgetCluster(clusterName multicluster.ClusterName) {
	q.fifo.forgetCluster(clusterName)
}

// fairFIFO is the order in which a work queue hands out its pending items: a FIFO per cluster, served round-robin.
// The work queue calls it under its own lock; forgetCluster comes from elsewhere, hence mu.
type fairFIFO[request mcreconcile.ClusterAware[request]] struct {
	mu       sync.Mutex
	buckets  map[multicluster.ClusterName]*bucket[request]
	ring     []*bucket[request] // clusters with pending items, in serving order
	next     int                // index in ring of the cluster served next
	draining []request          // items of forgotten clusters, served first
	length   int
}

// bucket is the FIFO of one cluster's pending items.
type bucket[request any] struct {
	cluster multicluster.ClusterName
	items   []request
	head    int
}

var _ workqueue.Queue[mcreconcile.Request] = &fairFIFO[mcreconcile.Request]{}

func newFairFIFO[request mcreconcile.ClusterAware[request]]() *fairFIFO[request] {
	return &fairFIFO[request]{buckets: map[multicluster.ClusterName]*bucket[request]{}}
}

// Touch does nothing: an item keeps its place when it is added again.
func (f *fairFIFO[request]) Touch(request) {}

// Push appends the item to its cluster's FIFO; a cluster that had nothing pending joins the end of the round.
func (f *fairFIFO[request]) Push(item request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.buckets[item.Cluster()]
	if !ok {
		b = &bucket[request]{cluster: item.Cluster()}
		f.buckets[b.cluster] = b
	}
	if b.head == len(b.items) {
		// The cluster had nothing pending: it joins the round just before the cluster served next, so it waits
		// one full round at most.
		f.ring = append(f.ring, nil)
		copy(f.ring[f.next+1:], f.ring[f.next:])
		f.ring[f.next] = b
		f.next++
		if f.next >= len(f.ring) {
			f.next = 0
		}
	}
	b.items = append(b.items, item)
	f.length++
}

// Len returns the number of pending items.
func (f *fairFIFO[request]) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.length
}

// Pop returns the next item: a forgotten cluster's item if there is one, else the oldest item of the cluster whose
// turn it is. The work queue calls it only when Len is not zero.
func (f *fairFIFO[request]) Pop() request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var zero request
	if f.length == 0 {
		return zero
	}
	f.length--
	if len(f.draining) > 0 {
		item := f.draining[0]
		f.draining[0] = zero
		f.draining = f.draining[1:]
		return item
	}

	if f.next >= len(f.ring) {
		f.next = 0
	}
	b := f.ring[f.next]
	item := b.items[b.head]
	b.items[b.head] = zero
	b.head++
	if b.head == len(b.items) {
		// Empty: leave the round; the next cluster moves into this slot.
		b.items, b.head = b.items[:0], 0
		f.ring = append(f.ring[:f.next], f.ring[f.next+1:]...)
		delete(f.buckets, b.cluster)
	} else {
		if b.head > 64 && b.head*2 > len(b.items) {
			b.items = append(b.items[:0], b.items[b.head:]...)
			b.head = 0
		}
		f.next++
	}
	if f.next >= len(f.ring) {
		f.next = 0
	}
	return item
}

// forgetCluster moves the cluster's pending items to the draining list, served before anything else.
func (f *fairFIFO[request]) forgetCluster(cluster multicluster.ClusterName) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.buckets[cluster]
	if !ok {
		return
	}
	delete(f.buckets, cluster)
	f.draining = append(f.draining, b.items[b.head:]...)
	for i, other := range f.ring {
		if other == b {
			f.ring = append(f.ring[:i], f.ring[i+1:]...)
			if f.next > i {
				f.next--
			}
			break
		}
	}
	if f.next >= len(f.ring) {
		f.next = 0
	}
}
