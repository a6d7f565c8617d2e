// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package fairqueue

import (
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// NewPriority returns the default queue of multi-cluster controllers: a priority queue, like
// controller-runtime's, that is fair across clusters. The result also implements controller-runtime's
// priorityqueue.PriorityQueue, so the controller passes the priority of a reconcile's Result (and of the request
// it reconciled) to its requeues, and controller-runtime's handlers enqueue the objects of a cache's initial list
// at handler.LowPriority.
//
// It guarantees:
//
//   - Fairness across clusters: the clusters with pending requests are served round-robin, one request per turn,
//     whatever their priorities. Between two requests of a cluster, every other cluster with pending requests gets
//     at most one; a cluster that had nothing pending waits at most one round. A cluster's backlog, even at high
//     priority, never holds back another cluster's requests, even at low priority.
//   - Priorities within a cluster: a cluster's turn goes to its pending request of highest priority, and among
//     those to the one pending the longest (or raised to that priority the longest ago). The priority of an add is
//     AddOpts.Priority, 0 if unset; Add, AddAfter and AddRateLimited add at 0.
//   - Deduplication: a request added while pending stays pending once, at the highest priority asked for; added
//     while a worker processes it, it is pending again once, after Done, at the highest priority asked for since.
//   - No request is handed to two workers at once.
//   - Delays: AddOpts.After, and AddOpts.RateLimited (the delay the rate limiter gives, the shorter of the two when
//     both are set), make a request pending once the delay has passed, at the priority of the add that asked for
//     it (the highest, if several delayed adds of the request are waiting; their earliest time wins). A delayed add
//     of a request that is pending already, or about to be, only raises its priority; an immediate add of a
//     waiting request makes it pending now, at the higher of both priorities.
//   - GetWithPriority returns the priority the request had when it was handed out.
//   - NumRequeues and Forget are the rate limiter's. Len counts the pending requests, not the delayed ones.
//   - ShutDown drops the delayed adds and ignores adds from then on; Get keeps handing out the pending requests
//     until there are none, then reports the shutdown. ShutDownWithDrain also waits for the requests being
//     processed to be Done.
//   - Requests of a cluster forgotten with ForgetCluster (which the controller calls when the cluster is
//     disengaged) are handed out before any other, for the controller to drop them without reconciling; its
//     delayed adds are dropped.
//   - The workqueue metrics (depth, adds, latency, work duration, unfinished work, longest running processor,
//     retries) are those of client-go's work queue under controllerName, through the metrics provider that
//     controller-runtime installs; an empty name records none.
//   - One goroutine times the delayed adds (client-go adds another for the metrics of a named queue); both end
//     by the time ShutDown or ShutDownWithDrain returns.
//
// A nil rateLimiter is controller-runtime's default for priority queues: per-request exponential backoff from
// 5ms to 1000s.
func NewPriority[request mcreconcile.ClusterAware[request]](controllerName string, rateLimiter workqueue.TypedRateLimiter[request]) workqueue.TypedRateLimitingInterface[request] {
	return newFairPriorityQueue(controllerName, rateLimiter, clock.RealClock{})
}

// fairPriorityQueue is the queue returned by NewPriority: client-go's work queue, over a fairOrder, for
// deduplication, exclusive processing, shutdown and metrics; this type adds priorities and delays. The work queue
// holds each request's entry in the order (see entryQueue), so that its sets and metrics work on pointers.
type fairPriorityQueue[request mcreconcile.ClusterAware[request]] struct {
	queue       *workqueue.Typed[*entry[request]]
	order       *fairOrder[request]
	rateLimiter workqueue.TypedRateLimiter[request]
	clock       clock.Clock
	retried     func()

	// shuttingDown is set first thing by ShutDown and ShutDownWithDrain: adds check it without taking the work
	// queue's lock, which every add and every Get already takes once.
	shuttingDown atomic.Bool

	mu      sync.Mutex
	waiting map[request]*delayedAdd[request]  // the delayed adds, one per request
	timers  indexedHeap[*delayedAdd[request]] // the same, by time
	closed  bool

	wake     chan struct{} // the earliest delayed add changed
	stop     chan struct{}
	stopped  chan struct{}
	stopOnce sync.Once
}

var (
	_ priorityqueue.PriorityQueue[mcreconcile.Request] = &fairPriorityQueue[mcreconcile.Request]{}
	_ ClusterForgetter                                 = &fairPriorityQueue[mcreconcile.Request]{}
)

// delayedAdd is an add waiting for its time.
type delayedAdd[request any] struct {
	item     request
	at       time.Time
	priority int
	index    int // in the heap
}

func newFairPriorityQueue[request mcreconcile.ClusterAware[request]](name string, rateLimiter workqueue.TypedRateLimiter[request], clk clock.Clock) *fairPriorityQueue[request] {
	if rateLimiter == nil {
		rateLimiter = workqueue.NewTypedItemExponentialFailureRateLimiter[request](5*time.Millisecond, 1000*time.Second)
	}
	order := newFairOrder[request]()
	q := &fairPriorityQueue[request]{
		queue: workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[*entry[request]]{
			Name:  name,
			Queue: entryQueue[request]{order: order},
		}),
		order:       order,
		rateLimiter: rateLimiter,
		clock:       clk,
		retried:     retriesMetric(name),
		waiting:     map[request]*delayedAdd[request]{},
		timers:      indexedHeap[*delayedAdd[request]]{less: delayedBefore[request]},
		wake:        make(chan struct{}, 1),
		stop:        make(chan struct{}),
		stopped:     make(chan struct{}),
	}
	go q.runDelays()
	return q
}

// Add makes the request pending at priority 0.
func (q *fairPriorityQueue[request]) Add(item request) {
	q.AddWithOpts(priorityqueue.AddOpts{}, item)
}

// AddAfter makes the request pending at priority 0 once the duration has passed.
func (q *fairPriorityQueue[request]) AddAfter(item request, after time.Duration) {
	q.AddWithOpts(priorityqueue.AddOpts{After: after}, item)
}

// AddRateLimited makes the request pending at priority 0 once the rate limiter allows it.
func (q *fairPriorityQueue[request]) AddRateLimited(item request) {
	q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true}, item)
}

// AddWithOpts adds the requests at opts.Priority (0 if unset), now or after opts.After or the rate limiter's
// delay (the shorter if both are set).
func (q *fairPriorityQueue[request]) AddWithOpts(opts priorityqueue.AddOpts, items ...request) {
	if q.shuttingDown.Load() {
		return
	}
	priority := ptr.Deref(opts.Priority, 0)
	for _, item := range items {
		after := opts.After
		if opts.RateLimited {
			if limited := q.rateLimiter.When(item); after <= 0 || limited < after {
				after = limited
			}
		}
		if after <= 0 {
			q.addNow(item, priority)
			continue
		}
		q.retried()
		if q.order.absorb(item, priority) {
			continue
		}
		q.addLater(item, q.clock.Now().Add(after), priority)
	}
}

// addNow hands the request to the work queue at priority, or at the priority of its delayed add if higher; the
// delayed add is cancelled.
func (q *fairPriorityQueue[request]) addNow(item request, priority int) {
	q.mu.Lock()
	if d := q.waiting[item]; d != nil {
		priority = max(priority, d.priority)
		q.timers.remove(d.index)
		delete(q.waiting, item)
	}
	q.mu.Unlock()
	e := q.order.acquire(item, priority)
	q.queue.Add(e)
	q.order.release(e)
}

// addLater records a delayed add, merged with the request's delayed add if it has one.
func (q *fairPriorityQueue[request]) addLater(item request, at time.Time, priority int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	d := q.waiting[item]
	switch {
	case d == nil:
		d = &delayedAdd[request]{item: item, at: at, priority: priority}
		q.waiting[item] = d
		q.timers.push(d)
	case at.Before(d.at):
		d.at = at
		d.priority = max(d.priority, priority)
		q.timers.fix(d.index)
	default:
		d.priority = max(d.priority, priority)
		return
	}
	if d.index == 0 {
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
}

// runDelays hands the delayed adds to the work queue when their time comes, until the queue shuts down.
func (q *fairPriorityQueue[request]) runDelays() {
	defer close(q.stopped)
	var timer clock.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		q.mu.Lock()
		now := q.clock.Now()
		var due []*delayedAdd[request]
		for q.timers.Len() > 0 && !q.timers.first().at.After(now) {
			d := q.timers.pop()
			delete(q.waiting, d.item)
			due = append(due, d)
		}
		if timer != nil {
			timer.Stop()
			timer = nil
		}
		var next <-chan time.Time
		if q.timers.Len() > 0 {
			timer = q.clock.NewTimer(q.timers.first().at.Sub(now))
			next = timer.C()
		}
		q.mu.Unlock()

		for _, d := range due {
			q.addNow(d.item, d.priority)
		}

		select {
		case <-q.stop:
			return
		case <-q.wake:
		case <-next:
		}
	}
}

// stopDelays ends runDelays and drops the delayed adds.
func (q *fairPriorityQueue[request]) stopDelays() {
	q.stopOnce.Do(func() {
		q.mu.Lock()
		q.closed = true
		q.waiting = map[request]*delayedAdd[request]{}
		q.timers.items = nil
		q.mu.Unlock()
		close(q.stop)
	})
	<-q.stopped
}

// Get hands out the next request; see GetWithPriority.
func (q *fairPriorityQueue[request]) Get() (request, bool) {
	item, _, shutdown := q.GetWithPriority()
	return item, shutdown
}

// GetWithPriority blocks until a request is pending or the queue has shut down and has none left, and hands out
// the request with the priority it had. The caller must call Done with it.
func (q *fairPriorityQueue[request]) GetWithPriority() (request, int, bool) {
	e, shutdown := q.queue.Get()
	if shutdown {
		var zero request
		return zero, 0, true
	}
	// Pop wrote handedOutAt in this goroutine, and nothing writes it until the entry is done.
	return e.item, e.handedOutAt, false
}

// Done marks the request as processed; if it was added again meanwhile, it is pending again. A request that has
// not been handed out is ignored.
func (q *fairPriorityQueue[request]) Done(item request) {
	e, handOut := q.order.processingEntry(item)
	if e == nil {
		return
	}
	// The work queue may hand the entry out again, to another worker, as soon as it is done with it here.
	q.queue.Done(e)
	q.order.finish(e, handOut)
}

// Len returns the number of pending requests, not counting delayed adds.
func (q *fairPriorityQueue[request]) Len() int {
	return q.queue.Len()
}

// ShutDown drops the delayed adds, ignores adds from now on and wakes the workers waiting in Get.
func (q *fairPriorityQueue[request]) ShutDown() {
	q.shuttingDown.Store(true)
	q.stopDelays()
	q.queue.ShutDown()
}

// ShutDownWithDrain is ShutDown, and waits for the requests being processed to be Done.
func (q *fairPriorityQueue[request]) ShutDownWithDrain() {
	q.shuttingDown.Store(true)
	q.stopDelays()
	q.queue.ShutDownWithDrain()
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain has been called.
func (q *fairPriorityQueue[request]) ShuttingDown() bool {
	return q.shuttingDown.Load()
}

// Forget tells the rate limiter the request is done with.
func (q *fairPriorityQueue[request]) Forget(item request) {
	q.rateLimiter.Forget(item)
}

// NumRequeues returns the rate limiter's count of the request's rate-limited adds.
func (q *fairPriorityQueue[request]) NumRequeues(item request) int {
	return q.rateLimiter.NumRequeues(item)
}

// ForgetCluster moves the cluster's pending requests to the front of the queue, to be dropped, and drops its
// delayed adds.
func (q *fairPriorityQueue[request]) ForgetCluster(clusterName multicluster.ClusterName) {
	q.order.forgetCluster(clusterName)
	q.mu.Lock()
	defer q.mu.Unlock()
	for item, d := range q.waiting {
		if item.Cluster() == clusterName {
			q.timers.remove(d.index)
			delete(q.waiting, item)
		}
	}
}

// delayedBefore orders delayed adds by time, earliest first.
func delayedBefore[request any](a, b *delayedAdd[request]) bool { return a.at.Before(b.at) }

func (d *delayedAdd[request]) setHeapIndex(i int) { d.index = i }

// retriesMetric returns a function that counts one retry (a delayed add) in the workqueue retries metric of the
// named queue, through the workqueue metrics provider, or does nothing for an empty name. client-go creates that
// metric only for its delaying queue, and counts a retry in each AddAfter; the delaying queue built here is shut
// down at once, so no goroutine runs for it, and it hands what it is given to a queue that drops it.
func retriesMetric(name string) func() {
	if name == "" {
		return func() {}
	}
	counter := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[struct{}]{
		Name:  name,
		Queue: discardQueue{},
	})
	counter.ShutDown()
	return func() { counter.AddAfter(struct{}{}, 0) }
}

// discardQueue is a work queue that drops everything and never shuts down.
type discardQueue struct{}

func (discardQueue) Add(struct{})                 {}
func (discardQueue) Len() int                     { return 0 }
func (discardQueue) Get() (item struct{}, _ bool) { return item, true }
func (discardQueue) Done(struct{})                {}
func (discardQueue) ShutDown()                    {}
func (discardQueue) ShutDownWithDrain()           {}
func (discardQueue) ShuttingDown() bool           { return false }
