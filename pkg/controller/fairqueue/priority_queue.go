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
//     retries) are those client-go's work queue records, with the same meaning, under controllerName, through the
//     metrics provider that controller-runtime installs; an empty name records none.
//   - One goroutine times the delayed adds and, for a named queue, updates the unfinished-work metrics every half
//     second; it ends by the time ShutDown or ShutDownWithDrain returns.
//   - Each request costs one entry in one map, from its first add until it has been processed, and each add, Get
//     and Done takes the queue's one lock once.
//
// A nil rateLimiter is controller-runtime's default for priority queues: per-request exponential backoff from
// 5ms to 1000s.
func NewPriority[request mcreconcile.ClusterAware[request]](controllerName string, rateLimiter workqueue.TypedRateLimiter[request]) workqueue.TypedRateLimitingInterface[request] {
	return newFairPriorityQueue(controllerName, rateLimiter, clock.RealClock{})
}

// fairPriorityQueue is the queue returned by NewPriority. It keeps all its state under the lock of its fairOrder:
// the order holds each request's entry, from the request's first add until it has been processed, and the entry
// records what client-go's work queue keeps in sets and maps of its own (whether the request is pending, processed,
// or added again while processed, and the times its metrics need), so that a request costs one map insert, one
// lookup and one delete on its way through, under one lock taken once by each add, Get and Done.
type fairPriorityQueue[request mcreconcile.ClusterAware[request]] struct {
	order       *fairOrder[request]
	cond        *sync.Cond // on order.mu: a request became pending, the queue shut down, or processing ended
	metrics     *queueMetrics
	rateLimiter workqueue.TypedRateLimiter[request]
	clock       clock.Clock

	// shuttingDown is set first thing by ShutDown and ShutDownWithDrain: adds check it without taking the lock.
	shuttingDown atomic.Bool

	// Guarded by order.mu.
	down       bool                              // shut down: no adds from now on; Get returns once nothing is pending
	drain      bool                              // ShutDownWithDrain waits for processing to empty
	processing []*entry[request]                 // the entries handed out and not done yet
	waiting    map[request]*delayedAdd[request]  // the delayed adds, one per request
	timers     indexedHeap[*delayedAdd[request]] // the same, by time
	closed     bool                              // the delayed adds are dropped

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
		order:       order,
		cond:        sync.NewCond(&order.mu),
		metrics:     newQueueMetrics(name),
		rateLimiter: rateLimiter,
		clock:       clk,
		waiting:     map[request]*delayedAdd[request]{},
		timers:      indexedHeap[*delayedAdd[request]]{less: delayedBefore[request]},
		wake:        make(chan struct{}, 1),
		stop:        make(chan struct{}),
		stopped:     make(chan struct{}),
	}
	go q.run()
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
		if after > 0 {
			q.metrics.retried()
		}
		q.order.mu.Lock()
		switch {
		case after <= 0:
			q.addNowLocked(item, priority)
		case !q.order.absorbLocked(item, priority):
			q.addLaterLocked(item, q.clock.Now().Add(after), priority)
		}
		q.order.mu.Unlock()
	}
}

// addNowLocked makes the request pending at priority, or at the priority of its delayed add if higher (the
// delayed add is cancelled). A pending request only takes the higher priority; a request being processed is
// pending again once it is done.
func (q *fairPriorityQueue[request]) addNowLocked(item request, priority int) {
	if len(q.waiting) > 0 {
		if d := q.waiting[item]; d != nil {
			priority = max(priority, d.priority)
			q.timers.remove(d.index)
			delete(q.waiting, item)
		}
	}
	if q.down {
		return
	}
	o := q.order
	e := o.entryLocked(item)
	switch {
	case e.pending:
		o.raiseLocked(e, priority)
	case e.processing:
		if !e.wanted {
			q.metrics.added(&e.times)
		}
		o.wantLocked(e, priority)
	default:
		q.metrics.added(&e.times)
		o.wantLocked(e, priority)
		o.pushLocked(e)
		q.cond.Signal()
	}
}

// addLaterLocked records a delayed add, merged with the request's delayed add if it has one.
func (q *fairPriorityQueue[request]) addLaterLocked(item request, at time.Time, priority int) {
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

// run makes the delayed adds pending when their time comes and, for a named queue, updates the unfinished-work
// metrics every unfinishedWorkUpdatePeriod, until the queue shuts down.
func (q *fairPriorityQueue[request]) run() {
	defer close(q.stopped)
	var timer clock.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	var tick <-chan time.Time
	if q.metrics != nil {
		ticker := time.NewTicker(unfinishedWorkUpdatePeriod)
		defer ticker.Stop()
		tick = ticker.C
	}
	for {
		q.order.mu.Lock()
		now := q.clock.Now()
		for q.timers.Len() > 0 && !q.timers.first().at.After(now) {
			d := q.timers.pop()
			delete(q.waiting, d.item)
			q.addNowLocked(d.item, d.priority)
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
		q.order.mu.Unlock()

	wait:
		for {
			select {
			case <-q.stop:
				return
			case <-q.wake:
				break wait
			case <-next:
				break wait
			case <-tick:
				// The delayed adds are as they were: only the metrics need updating.
				q.updateUnfinishedWork()
			}
		}
	}
}

// updateUnfinishedWork sets the unfinished-work metrics from the requests being processed.
func (q *fairPriorityQueue[request]) updateUnfinishedWork() {
	q.order.mu.Lock()
	defer q.order.mu.Unlock()
	now := time.Now()
	var total, oldest float64
	for _, e := range q.processing {
		if !e.times.started.IsZero() {
			age := now.Sub(e.times.started).Seconds()
			total += age
			oldest = max(oldest, age)
		}
	}
	q.metrics.setUnfinishedWork(total, oldest)
}

// stopDelays ends run and drops the delayed adds.
func (q *fairPriorityQueue[request]) stopDelays() {
	q.stopOnce.Do(func() {
		q.order.mu.Lock()
		q.closed = true
		q.waiting = map[request]*delayedAdd[request]{}
		q.timers.items = nil
		q.order.mu.Unlock()
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
	o := q.order
	o.mu.Lock()
	defer o.mu.Unlock()
	for o.pending == 0 && !q.down {
		q.cond.Wait()
	}
	if o.pending == 0 {
		var zero request
		return zero, 0, true
	}
	e := o.popLocked()
	e.processing = true
	e.processingIndex = len(q.processing)
	q.processing = append(q.processing, e)
	q.metrics.handedOut(&e.times)
	// The priority stays the one it was handed out with until the entry is pending again.
	return e.item, e.priority, false
}

// Done marks the request as processed; if it was added again meanwhile, it is pending again. A request that has
// not been handed out is ignored.
func (q *fairPriorityQueue[request]) Done(item request) {
	o := q.order
	o.mu.Lock()
	defer o.mu.Unlock()
	e := o.entries[item]
	if e == nil || !e.processing {
		return
	}
	q.metrics.done(&e.times)
	e.processing = false
	last := len(q.processing) - 1
	moved := q.processing[last]
	q.processing[e.processingIndex], moved.processingIndex = moved, e.processingIndex
	q.processing[last] = nil
	q.processing = q.processing[:last]
	if e.wanted {
		o.pushLocked(e)
		q.cond.Signal()
	} else {
		o.dropIfIdleLocked(e)
	}
	if len(q.processing) == 0 && q.drain {
		q.cond.Broadcast()
	}
}

// Len returns the number of pending requests, not counting delayed adds.
func (q *fairPriorityQueue[request]) Len() int {
	return q.order.Len()
}

// ShutDown drops the delayed adds, ignores adds from now on and wakes the workers waiting in Get.
func (q *fairPriorityQueue[request]) ShutDown() {
	q.shutDown(false)
}

// ShutDownWithDrain is ShutDown, and waits for the requests being processed to be Done (or for ShutDown).
func (q *fairPriorityQueue[request]) ShutDownWithDrain() {
	q.shutDown(true)
}

func (q *fairPriorityQueue[request]) shutDown(drain bool) {
	q.shuttingDown.Store(true)
	q.stopDelays()
	q.order.mu.Lock()
	defer q.order.mu.Unlock()
	q.down, q.drain = true, drain
	q.cond.Broadcast()
	for q.drain && len(q.processing) > 0 {
		q.cond.Wait()
	}
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
	q.order.mu.Lock()
	defer q.order.mu.Unlock()
	q.order.forgetClusterLocked(clusterName)
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
