// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package fairqueue

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// prioritized is a request handed out with its priority.
type prioritized struct {
	req      mcreconcile.Request
	priority int
}

func (p prioritized) String() string { return fmt.Sprintf("%s@%d", p.req, p.priority) }

// fakeLimiter delays rate-limited adds by a fixed duration and counts them.
type fakeLimiter struct {
	mu    sync.Mutex
	delay time.Duration
	count map[mcreconcile.Request]int
}

func newFakeLimiter(delay time.Duration) *fakeLimiter {
	return &fakeLimiter{delay: delay, count: map[mcreconcile.Request]int{}}
}

func (l *fakeLimiter) When(item mcreconcile.Request) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count[item]++
	return l.delay
}

func (l *fakeLimiter) Forget(item mcreconcile.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.count, item)
}

func (l *fakeLimiter) NumRequeues(item mcreconcile.Request) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count[item]
}

// newTestPriorityQueue returns a fair priority queue on a fake clock, shut down when the test ends.
func newTestPriorityQueue(t *testing.T, name string, limiter workqueue.TypedRateLimiter[mcreconcile.Request]) (*fairPriorityQueue[mcreconcile.Request], *clocktesting.FakeClock) {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Now())
	q := newFairPriorityQueue(name, limiter, clk)
	t.Cleanup(q.ShutDown)
	return q, clk
}

// getWithPriority takes the next request with its priority and marks it done, failing the test if none comes.
func getWithPriority(t *testing.T, q priorityqueue.PriorityQueue[mcreconcile.Request]) prioritized {
	t.Helper()
	type got struct {
		p        prioritized
		shutdown bool
	}
	ch := make(chan got, 1)
	go func() {
		item, priority, shutdown := q.GetWithPriority()
		ch <- got{prioritized{item, priority}, shutdown}
	}()
	select {
	case g := <-ch:
		if g.shutdown {
			t.Fatal("queue shut down")
		}
		q.Done(g.p.req)
		return g.p
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("no request was handed out")
		return prioritized{}
	}
}

// drainPrioritized takes every pending request, in order.
func drainPrioritized(t *testing.T, q priorityqueue.PriorityQueue[mcreconcile.Request]) []prioritized {
	t.Helper()
	var got []prioritized
	for q.Len() > 0 {
		got = append(got, getWithPriority(t, q))
	}
	return got
}

// waitFor polls cond until it holds, failing the test after wait.ForeverTestTimeout; step, if not nil, runs
// between polls.
func waitFor(t *testing.T, what string, cond func() bool, step func()) {
	t.Helper()
	deadline := time.After(wait.ForeverTestTimeout)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
		if step != nil {
			step()
		}
	}
}

// waitingAdds returns the number of delayed adds the queue holds.
func (q *fairPriorityQueue[request]) waitingAdds() int {
	q.order.mu.Lock()
	defer q.order.mu.Unlock()
	return len(q.waiting)
}

// add is one AddWithOpts of a test.
type add struct {
	cluster, name string
	priority      *int
}

func at(priority int) *int { return &priority }

func TestFairPriorityQueueOrder(t *testing.T) {
	low := handler.LowPriority
	tests := []struct {
		name string
		adds []add
		want []prioritized
	}{{
		name: "higher priority first within a cluster, FIFO within a priority",
		adds: []add{
			{"a", "list-1", &low}, {"a", "plain-1", nil}, {"a", "high-1", at(10)},
			{"a", "list-2", &low}, {"a", "high-2", at(10)}, {"a", "plain-2", at(0)},
		},
		want: []prioritized{
			{req("a", "high-1"), 10}, {req("a", "high-2"), 10}, {req("a", "plain-1"), 0}, {req("a", "plain-2"), 0},
			{req("a", "list-1"), low}, {req("a", "list-2"), low},
		},
	}, {
		name: "clusters take turns whatever their priorities",
		adds: []add{
			{"a", "1", at(100)}, {"a", "2", at(100)}, {"a", "3", at(100)}, {"a", "4", at(100)},
			{"b", "1", &low}, {"c", "1", at(0)}, {"c", "2", at(0)},
		},
		want: []prioritized{
			{req("a", "1"), 100}, {req("b", "1"), low}, {req("c", "1"), 0},
			{req("a", "2"), 100}, {req("c", "2"), 0},
			{req("a", "3"), 100}, {req("a", "4"), 100},
		},
	}, {
		name: "an add at a higher priority raises a pending request, after those already there",
		adds: []add{
			{"a", "x", at(0)}, {"a", "y", at(5)}, {"a", "z", at(0)}, {"a", "x", at(5)},
		},
		want: []prioritized{{req("a", "y"), 5}, {req("a", "x"), 5}, {req("a", "z"), 0}},
	}, {
		name: "an add at a lower priority leaves a pending request where it is",
		adds: []add{
			{"a", "x", at(3)}, {"a", "y", at(2)}, {"a", "x", &low}, {"a", "x", nil},
		},
		want: []prioritized{{req("a", "x"), 3}, {req("a", "y"), 2}},
	}, {
		name: "duplicates are pending once, at the highest priority asked",
		adds: []add{
			{"a", "x", &low}, {"a", "x", at(7)}, {"a", "x", at(1)}, {"b", "y", nil}, {"b", "y", nil},
		},
		want: []prioritized{{req("a", "x"), 7}, {req("b", "y"), 0}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _ := newTestPriorityQueue(t, "", nil)
			for _, a := range tt.adds {
				if a.priority == nil {
					q.Add(req(a.cluster, a.name))
				} else {
					q.AddWithOpts(priorityqueue.AddOpts{Priority: a.priority}, req(a.cluster, a.name))
				}
			}
			if q.Len() != len(tt.want) {
				t.Errorf("Len = %d, want %d", q.Len(), len(tt.want))
			}
			if got := drainPrioritized(t, q); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("handed out\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

func TestFairPriorityQueueHighPriorityBacklogDoesNotDelayOtherClusters(t *testing.T) {
	q, _ := newTestPriorityQueue(t, "", nil)
	for i := range 1000 {
		q.AddWithOpts(priorityqueue.AddOpts{Priority: at(1000)}, req("busy", fmt.Sprint(i)))
	}
	get(t, q)
	q.AddWithOpts(priorityqueue.AddOpts{Priority: at(handler.LowPriority)}, req("quiet", "x"))
	// The busy cluster's turn comes first (the quiet cluster joined the round at its end), then the quiet cluster's.
	got := []prioritized{getWithPriority(t, q), getWithPriority(t, q)}
	if got[1] != (prioritized{req("quiet", "x"), handler.LowPriority}) {
		t.Fatalf("handed out %v, want the quiet cluster's request second", got)
	}
}

func TestFairPriorityQueueAddWhileProcessing(t *testing.T) {
	q, _ := newTestPriorityQueue(t, "", nil)
	q.AddWithOpts(priorityqueue.AddOpts{Priority: at(2)}, req("a", "x"))
	item, priority, _ := q.GetWithPriority()
	if item != req("a", "x") || priority != 2 {
		t.Fatalf("got %v@%d, want a/x@2", item, priority)
	}
	// Added again while processed: pending once after Done, at the highest priority asked meanwhile.
	q.AddWithOpts(priorityqueue.AddOpts{Priority: at(7)}, item)
	q.AddWithOpts(priorityqueue.AddOpts{Priority: at(3)}, item)
	q.AddWithOpts(priorityqueue.AddOpts{Priority: at(4)}, req("a", "y"))
	if q.Len() != 1 {
		t.Fatalf("Len = %d while a/x is processed, want 1 (a/y)", q.Len())
	}
	q.Done(item)
	want := []prioritized{{req("a", "x"), 7}, {req("a", "y"), 4}}
	if got := drainPrioritized(t, q); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("handed out %v, want %v", got, want)
	}
}

func TestFairPriorityQueueDelays(t *testing.T) {
	const second = time.Second
	tests := []struct {
		name string
		// before adds to the queue at time 0 and is expected to leave Len pending requests.
		before func(q *fairPriorityQueue[mcreconcile.Request])
		// readyAt is when the delayed adds are due; nothing more is pending a millisecond before.
		readyAt time.Duration
		want    []prioritized
	}{{
		name: "After keeps the priority of the add",
		before: func(q *fairPriorityQueue[mcreconcile.Request]) {
			q.AddWithOpts(priorityqueue.AddOpts{After: second, Priority: at(10)}, req("a", "x"))
			q.Add(req("a", "y"))
		},
		readyAt: second,
		want:    []prioritized{{req("a", "x"), 10}, {req("a", "y"), 0}},
	}, {
		name: "RateLimited waits for the rate limiter and keeps the priority of the add",
		before: func(q *fairPriorityQueue[mcreconcile.Request]) {
			q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true, Priority: at(5)}, req("a", "x"))
			q.Add(req("a", "y"))
		},
		readyAt: 2 * second, // the fake limiter's delay
		want:    []prioritized{{req("a", "x"), 5}, {req("a", "y"), 0}},
	}, {
		name: "After and RateLimited: the shorter delay",
		before: func(q *fairPriorityQueue[mcreconcile.Request]) {
			q.AddWithOpts(priorityqueue.AddOpts{After: 3 * second, RateLimited: true, Priority: at(1)}, req("a", "x"))
		},
		readyAt: 2 * second,
		want:    []prioritized{{req("a", "x"), 1}},
	}, {
		name: "delayed adds of a request merge: the earliest time, the highest priority",
		before: func(q *fairPriorityQueue[mcreconcile.Request]) {
			q.AddWithOpts(priorityqueue.AddOpts{After: 5 * second, Priority: at(9)}, req("a", "x"))
			q.AddWithOpts(priorityqueue.AddOpts{After: second, Priority: at(0)}, req("a", "x"))
			q.AddWithOpts(priorityqueue.AddOpts{After: 4 * second, Priority: at(3)}, req("a", "x"))
			q.AddWithOpts(priorityqueue.AddOpts{Priority: at(4)}, req("a", "y"))
		},
		readyAt: second,
		want:    []prioritized{{req("a", "x"), 9}, {req("a", "y"), 4}},
	}, {
		name: "delayed adds in several clusters take turns when due",
		before: func(q *fairPriorityQueue[mcreconcile.Request]) {
			q.AddWithOpts(priorityqueue.AddOpts{After: second, Priority: at(9)}, req("a", "1"), req("a", "2"))
			q.AddWithOpts(priorityqueue.AddOpts{After: second, Priority: at(0)}, req("b", "1"))
		},
		readyAt: second,
		want:    []prioritized{{req("a", "1"), 9}, {req("b", "1"), 0}, {req("a", "2"), 9}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, clk := newTestPriorityQueue(t, "", newFakeLimiter(2*second))
			tt.before(q)
			pending := q.Len()

			clk.Step(tt.readyAt - time.Millisecond)
			// The queue makes a delayed add pending only once the (fake) clock has reached its time.
			if q.Len() != pending {
				t.Fatalf("Len = %d a millisecond before the delay ends, want %d", q.Len(), pending)
			}
			clk.Step(time.Millisecond)
			// If the queue armed its timer while the clock moved, it fires a little later: keep the clock moving.
			waitFor(t, "the delayed adds", func() bool { return q.Len() == len(tt.want) }, func() { clk.Step(time.Millisecond) })
			if got := drainPrioritized(t, q); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("handed out\n%v\nwant\n%v", got, tt.want)
			}
			if n := q.waitingAdds(); n != 0 {
				t.Errorf("%d delayed adds left, want none", n)
			}
		})
	}
}

func TestFairPriorityQueueDelayedAndImmediateAddsOfOneRequest(t *testing.T) {
	tests := []struct {
		name        string
		adds        func(q *fairPriorityQueue[mcreconcile.Request])
		wantWaiting int
		want        []prioritized
	}{{
		name: "an immediate add of a waiting request makes it pending now, at the higher priority",
		adds: func(q *fairPriorityQueue[mcreconcile.Request]) {
			q.AddWithOpts(priorityqueue.AddOpts{After: time.Hour, Priority: at(8)}, req("a", "x"))
			q.Add(req("a", "y"))
			q.Add(req("a", "x"))
		},
		want: []prioritized{{req("a", "x"), 8}, {req("a", "y"), 0}},
	}, {
		name: "a delayed add of a pending request only raises its priority",
		adds: func(q *fairPriorityQueue[mcreconcile.Request]) {
			q.Add(req("a", "x"))
			q.Add(req("a", "y"))
			q.AddWithOpts(priorityqueue.AddOpts{After: time.Hour, Priority: at(3)}, req("a", "y"))
			q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true, Priority: at(-3)}, req("a", "x"))
		},
		want: []prioritized{{req("a", "y"), 3}, {req("a", "x"), 0}},
	}, {
		name: "a delayed add of a request processed and added again only raises its priority",
		adds: func(q *fairPriorityQueue[mcreconcile.Request]) {
			q.Add(req("a", "x"))
			item, _ := q.Get()
			q.Add(item)
			q.AddWithOpts(priorityqueue.AddOpts{After: time.Hour, Priority: at(4)}, item)
			q.Add(req("a", "y"))
			q.Done(item)
		},
		want: []prioritized{{req("a", "x"), 4}, {req("a", "y"), 0}},
	}, {
		name: "a delayed add of a request being processed waits",
		adds: func(q *fairPriorityQueue[mcreconcile.Request]) {
			q.Add(req("a", "x"))
			item, _ := q.Get()
			q.AddWithOpts(priorityqueue.AddOpts{After: time.Hour, Priority: at(4)}, item)
			q.Done(item)
		},
		wantWaiting: 1,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _ := newTestPriorityQueue(t, "", newFakeLimiter(time.Hour))
			tt.adds(q)
			if n := q.waitingAdds(); n != tt.wantWaiting {
				t.Errorf("%d delayed adds, want %d", n, tt.wantWaiting)
			}
			if got := drainPrioritized(t, q); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("handed out\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

func TestFairPriorityQueueRateLimiter(t *testing.T) {
	limiter := newFakeLimiter(time.Hour)
	q, _ := newTestPriorityQueue(t, "", limiter)
	x := req("a", "x")
	q.AddRateLimited(x)
	q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true}, x)
	if got := q.NumRequeues(x); got != 2 {
		t.Errorf("NumRequeues = %d, want 2", got)
	}
	q.Forget(x)
	if got := q.NumRequeues(x); got != 0 {
		t.Errorf("NumRequeues = %d after Forget, want 0", got)
	}
}

func TestFairPriorityQueueForgetCluster(t *testing.T) {
	q, clk := newTestPriorityQueue(t, "", nil)
	q.AddWithOpts(priorityqueue.AddOpts{Priority: at(5)}, req("keep", "1"))
	q.AddWithOpts(priorityqueue.AddOpts{Priority: at(handler.LowPriority)}, req("gone", "1"))
	q.AddWithOpts(priorityqueue.AddOpts{Priority: at(1)}, req("gone", "2"))
	q.AddWithOpts(priorityqueue.AddOpts{After: time.Minute}, req("gone", "later"))
	q.AddWithOpts(priorityqueue.AddOpts{After: time.Minute, Priority: at(2)}, req("keep", "later"))

	q.ForgetCluster("gone")
	// A forgotten cluster's pending requests do not take priorities any more.
	q.AddWithOpts(priorityqueue.AddOpts{Priority: at(9)}, req("gone", "1"))
	if n := q.waitingAdds(); n != 1 {
		t.Errorf("%d delayed adds, want 1: the forgotten cluster's are dropped", n)
	}
	clk.Step(time.Minute)
	waitFor(t, "keep's delayed add", func() bool { return q.Len() == 4 }, func() { clk.Step(time.Millisecond) })
	want := []prioritized{
		{req("gone", "2"), 1}, {req("gone", "1"), handler.LowPriority}, // the forgotten cluster's first
		{req("keep", "1"), 5}, {req("keep", "later"), 2},
	}
	if got := drainPrioritized(t, q); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("handed out\n%v\nwant\n%v", got, want)
	}
}

func TestFairPriorityQueueShutDownDropsDelayedAdds(t *testing.T) {
	for _, drain := range []bool{false, true} {
		t.Run(fmt.Sprintf("drain=%v", drain), func(t *testing.T) {
			q, clk := newTestPriorityQueue(t, "", nil)
			q.AddAfter(req("a", "later"), time.Second)
			q.AddWithOpts(priorityqueue.AddOpts{Priority: at(3)}, req("a", "now"))
			if drain {
				q.ShutDownWithDrain()
			} else {
				q.ShutDown()
			}
			q.AddAfter(req("a", "after-shutdown"), time.Second)
			q.AddWithOpts(priorityqueue.AddOpts{Priority: at(4)}, req("a", "after-shutdown"))
			if n := q.waitingAdds(); n != 0 {
				t.Errorf("%d delayed adds after shutdown, want none", n)
			}
			clk.Step(time.Hour)
			// What was pending is still handed out, then Get reports the shutdown.
			if item, priority, shutdown := q.GetWithPriority(); shutdown || item != req("a", "now") || priority != 3 {
				t.Errorf("GetWithPriority = %v, %d, %v; want a/now, 3, false", item, priority, shutdown)
			}
			if _, _, shutdown := q.GetWithPriority(); !shutdown {
				t.Error("GetWithPriority did not report the shutdown")
			}
		})
	}
}

func TestFairPriorityQueueMetrics(t *testing.T) {
	// Metrics outlive queues: a name of this run only.
	name := fmt.Sprint("fair-priority-queue-metrics-", time.Now().UnixNano())
	q, _ := newTestPriorityQueue(t, name, newFakeLimiter(time.Hour))
	q.Add(req("a", "x"))
	q.AddWithOpts(priorityqueue.AddOpts{Priority: at(3)}, req("b", "x"))
	q.AddAfter(req("a", "y"), time.Hour)
	q.AddRateLimited(req("a", "z"))
	q.AddAfter(req("a", "now"), 0)
	q.Add(req("a", "x")) // pending already: not another add

	want := map[string]float64{
		"workqueue_depth":         3, // a/x, b/x and a/now: the delayed adds are not pending yet
		"workqueue_adds_total":    3,
		"workqueue_retries_total": 2, // the adds with a delay
	}
	for metric, v := range want {
		if got := queueMetric(t, name, metric); got != v {
			t.Errorf("%s{name=%q} = %v, want %v", metric, name, got, v)
		}
	}

	// A worker takes a request: it leaves the depth, and its time in the queue is observed; while it is processed,
	// the unfinished work grows; once it is done, its work duration is observed.
	taken, _, _ := q.GetWithPriority()
	if got := queueMetric(t, name, "workqueue_depth"); got != 2 {
		t.Errorf("depth after a hand-out = %v, want 2", got)
	}
	if got := queueMetric(t, name, "workqueue_queue_duration_seconds"); got != 1 {
		t.Errorf("queue durations observed = %v, want 1", got)
	}
	q.Add(taken) // added again while processed: pending again at Done, counted now
	if got := queueMetric(t, name, "workqueue_adds_total"); got != 4 {
		t.Errorf("adds after an add during processing = %v, want 4", got)
	}
	if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return queueMetric(t, name, "workqueue_unfinished_work_seconds") > 0 &&
			queueMetric(t, name, "workqueue_longest_running_processor_seconds") > 0, nil
	}); err != nil {
		t.Errorf("the unfinished work of a request being processed is never reported: %v", err)
	}
	q.Done(taken)
	if got := queueMetric(t, name, "workqueue_work_duration_seconds"); got != 1 {
		t.Errorf("work durations observed = %v, want 1", got)
	}
	if got := queueMetric(t, name, "workqueue_depth"); got != 3 {
		t.Errorf("depth once %v is pending again = %v, want 3", taken, got)
	}
}

// queueMetric returns the value of a workqueue metric of the named queue in controller-runtime's registry: a
// counter's or gauge's value, a histogram's number of observations.
func queueMetric(t *testing.T, name, metric string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var v float64
	for _, f := range families {
		if f.GetName() != metric {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() != "name" || l.GetValue() != name {
					continue
				}
				switch {
				case m.GetCounter() != nil:
					v += m.GetCounter().GetValue()
				case m.GetGauge() != nil:
					v += m.GetGauge().GetValue()
				case m.GetHistogram() != nil:
					v += float64(m.GetHistogram().GetSampleCount())
				}
			}
		}
	}
	return v
}

// Many producers adding at random priorities in a few clusters, some with delays, and many workers: no request is
// handed to two workers at once, every add is followed by a hand-out, and no request is left stuck.
func TestFairPriorityQueueConcurrentUse(t *testing.T) {
	q := newFairPriorityQueue[mcreconcile.Request]("", workqueue.NewTypedItemExponentialFailureRateLimiter[mcreconcile.Request](time.Microsecond, time.Millisecond), clock.RealClock{})
	t.Cleanup(q.ShutDown)
	const producers, adds, workers = 4, 500, 4

	var mu sync.Mutex
	generation := 0
	processing := map[mcreconcile.Request]bool{}
	lastAdd := map[mcreconcile.Request]int{}   // generation when the last add of the request started
	handedOut := map[mcreconcile.Request]int{} // generation when the request was last handed out
	var failures []string

	var working sync.WaitGroup
	for range workers {
		working.Go(func() {
			for {
				item, _, shutdown := q.GetWithPriority()
				if shutdown {
					return
				}
				mu.Lock()
				if processing[item] {
					failures = append(failures, fmt.Sprintf("%v handed to two workers", item))
				}
				processing[item] = true
				generation++
				handedOut[item] = generation
				mu.Unlock()

				mu.Lock()
				processing[item] = false
				mu.Unlock()
				q.Done(item)
			}
		})
	}
	addOne := func(item mcreconcile.Request, opts priorityqueue.AddOpts) {
		mu.Lock()
		generation++
		lastAdd[item] = generation
		mu.Unlock()
		q.AddWithOpts(opts, item)
	}
	quiescent := func() bool {
		mu.Lock()
		defer mu.Unlock()
		for item, g := range lastAdd {
			if handedOut[item] < g || processing[item] {
				return false
			}
		}
		return q.Len() == 0 && q.waitingAdds() == 0
	}

	var producing sync.WaitGroup
	for p := range producers {
		producing.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(p), 0))
			for range adds {
				item := req(fmt.Sprint("c", rnd.IntN(3)), fmt.Sprint(rnd.IntN(20)))
				addOne(item, priorityqueue.AddOpts{Priority: at(rnd.IntN(5) - 2)})
				if rnd.IntN(10) == 0 {
					addOne(item, priorityqueue.AddOpts{RateLimited: true, Priority: at(rnd.IntN(5))})
				}
			}
		})
	}
	producing.Wait()
	waitFor(t, "every add handed out", quiescent, nil)

	// Nothing is stuck: every request added once more is handed out once more.
	mu.Lock()
	items := make([]mcreconcile.Request, 0, len(lastAdd))
	for item := range lastAdd {
		items = append(items, item)
	}
	mu.Unlock()
	for _, item := range items {
		addOne(item, priorityqueue.AddOpts{})
	}
	waitFor(t, "every request handed out again", quiescent, nil)

	q.ShutDown()
	working.Wait()
	if len(failures) > 0 {
		t.Error(failures)
	}
}
