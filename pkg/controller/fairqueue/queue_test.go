// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package fairqueue

import (
	"fmt"
	"testing"
	"time"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

func req(cluster, name string) mcreconcile.Request {
	return mcreconcile.Request{
		Request:     reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: name}},
		ClusterName: multicluster.ClusterName(cluster),
	}
}

type newQueueFunc = func(string, workqueue.TypedRateLimiter[mcreconcile.Request]) workqueue.TypedRateLimitingInterface[mcreconcile.Request]

// fairQueues are the queues that are fair across clusters; the tests of this file hold for both.
var fairQueues = []struct {
	name string
	new  newQueueFunc
}{
	{name: "New", new: New[mcreconcile.Request]},
	{name: "NewPriority", new: NewPriority[mcreconcile.Request]},
}

// forEachFairQueue runs test as a subtest for each fair queue, with a new queue shut down when it ends.
func forEachFairQueue(t *testing.T, test func(t *testing.T, q workqueue.TypedRateLimitingInterface[mcreconcile.Request])) {
	for _, fq := range fairQueues {
		t.Run(fq.name, func(t *testing.T) {
			q := fq.new("", workqueue.NewTypedItemExponentialFailureRateLimiter[mcreconcile.Request](time.Millisecond, time.Second))
			t.Cleanup(q.ShutDown)
			test(t, q)
		})
	}
}

// get takes the next request and marks it done, failing the test if none comes in time.
func get(t *testing.T, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) mcreconcile.Request {
	t.Helper()
	type got struct {
		item     mcreconcile.Request
		shutdown bool
	}
	ch := make(chan got, 1)
	go func() {
		item, shutdown := q.Get()
		ch <- got{item, shutdown}
	}()
	select {
	case g := <-ch:
		if g.shutdown {
			t.Fatal("queue shut down")
		}
		q.Done(g.item)
		return g.item
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("no request was handed out")
		return mcreconcile.Request{}
	}
}

func TestFairQueuesServeClustersRoundRobin(t *testing.T) {
	forEachFairQueue(t, func(t *testing.T, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
		for i := range 100 {
			q.Add(req("noisy", fmt.Sprint(i)))
		}
		q.Add(req("quiet-a", "x"))
		q.Add(req("quiet-b", "y"))

		// Both quiet clusters are served within the first round, however deep the noisy backlog.
		served := map[multicluster.ClusterName]int{}
		for range 3 {
			served[get(t, q).ClusterName]++
		}
		if served["quiet-a"] != 1 || served["quiet-b"] != 1 || served["noisy"] != 1 {
			t.Fatalf("first round served %v, want one request of each cluster", served)
		}
		// FIFO within a cluster (and a priority).
		for i := 1; i < 100; i++ {
			if got := get(t, q); got != req("noisy", fmt.Sprint(i)) {
				t.Fatalf("got %v, want noisy request %d", got, i)
			}
		}
	})
}

func TestFairQueuesNewClusterWaitsAtMostOneRound(t *testing.T) {
	forEachFairQueue(t, func(t *testing.T, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
		for _, c := range []string{"a", "b", "c"} {
			for i := range 10 {
				q.Add(req(c, fmt.Sprint(i)))
			}
		}
		get(t, q) // a
		q.Add(req("late", "z"))
		// late joins the round at its end: after b, c and a, each of which gets one turn, not ten.
		order := make([]multicluster.ClusterName, 0, 4)
		for range 4 {
			order = append(order, get(t, q).ClusterName)
		}
		if want := []multicluster.ClusterName{"b", "c", "a", "late"}; fmt.Sprint(order) != fmt.Sprint(want) {
			t.Fatalf("served %v, want %v", order, want)
		}
	})
}

func TestFairQueuesKeepWorkqueueSemantics(t *testing.T) {
	forEachFairQueue(t, func(t *testing.T, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
		// Deduplication of pending requests.
		q.Add(req("a", "x"))
		q.Add(req("a", "x"))
		if q.Len() != 1 {
			t.Fatalf("Len = %d after adding the same request twice, want 1", q.Len())
		}

		// A request being processed is not handed out again until Done, and then exactly once.
		item, _ := q.Get()
		q.Add(item)
		q.Add(item)
		if q.Len() != 0 {
			t.Fatalf("Len = %d while the request is processed, want 0", q.Len())
		}
		q.Done(item)
		if q.Len() != 1 {
			t.Fatalf("Len = %d after Done of a re-added request, want 1", q.Len())
		}
		get(t, q)
		if q.Len() != 0 {
			t.Fatalf("Len = %d, want 0", q.Len())
		}

		// Rate-limited requeue and delayed adds arrive later.
		q.AddRateLimited(req("a", "y"))
		if q.NumRequeues(req("a", "y")) != 1 {
			t.Fatalf("NumRequeues = %d, want 1", q.NumRequeues(req("a", "y")))
		}
		if got := get(t, q); got != req("a", "y") {
			t.Fatalf("got %v, want the rate-limited request", got)
		}
		q.Forget(req("a", "y"))
		if q.NumRequeues(req("a", "y")) != 0 {
			t.Fatal("Forget did not reset the requeue count")
		}
		q.AddAfter(req("b", "z"), 20*time.Millisecond)
		if got := get(t, q); got != req("b", "z") {
			t.Fatalf("got %v, want the delayed request", got)
		}
	})
}

func TestFairQueuesForgetClusterDrainsFirst(t *testing.T) {
	forEachFairQueue(t, func(t *testing.T, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
		for i := range 5 {
			q.Add(req("keep", fmt.Sprint(i)))
		}
		for i := range 3 {
			q.Add(req("gone", fmt.Sprint(i)))
		}
		q.(ClusterForgetter).ForgetCluster("gone")
		q.(ClusterForgetter).ForgetCluster("never-seen")
		if q.Len() != 8 {
			t.Fatalf("Len = %d, want 8: forgotten requests still leave through Get", q.Len())
		}
		for i := range 3 {
			if got := get(t, q); got.ClusterName != "gone" {
				t.Fatalf("request %d: got %v, want the forgotten cluster's requests first", i, got)
			}
		}
		// A request of the forgotten cluster added again is queued normally (the name may be engaged again).
		q.Add(req("gone", "0"))
		seen := map[multicluster.ClusterName]int{}
		for q.Len() > 0 {
			seen[get(t, q).ClusterName]++
		}
		if seen["keep"] != 5 || seen["gone"] != 1 {
			t.Fatalf("served %v", seen)
		}
	})
}

func TestFairQueuesShutDown(t *testing.T) {
	forEachFairQueue(t, func(t *testing.T, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
		q.Add(req("a", "x"))
		q.AddAfter(req("a", "later"), time.Hour)
		q.ShutDown()
		if !q.ShuttingDown() {
			t.Fatal("not shutting down")
		}
		q.Add(req("a", "y"))
		if q.Len() != 1 {
			t.Fatalf("Len = %d, want 1: adds after ShutDown are ignored", q.Len())
		}
		if _, shutdown := q.Get(); shutdown {
			t.Fatal("pending request lost at shutdown")
		}
		if _, shutdown := q.Get(); !shutdown {
			t.Fatal("Get after draining did not report shutdown")
		}
	})
}

func TestFairQueuesShutDownWithDrainWaitsForDone(t *testing.T) {
	forEachFairQueue(t, func(t *testing.T, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
		q.Add(req("a", "x"))
		item, _ := q.Get()
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			q.ShutDownWithDrain()
		}()
		select {
		case <-drained:
			t.Fatal("ShutDownWithDrain returned while a request was processed")
		default:
		}
		q.Done(item)
		select {
		case <-drained:
		case <-time.After(wait.ForeverTestTimeout):
			t.Fatal("ShutDownWithDrain did not return after Done")
		}
		if _, shutdown := q.Get(); !shutdown {
			t.Fatal("Get after drain did not report shutdown")
		}
	})
}

func TestFairQueuesLeaveNoGoroutine(t *testing.T) {
	for _, fq := range fairQueues {
		for _, name := range []string{"", "fair-leak-" + fq.name} {
			t.Run(fmt.Sprintf("%s/%q", fq.name, name), func(t *testing.T) {
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				q := fq.new(name, workqueue.NewTypedItemExponentialFailureRateLimiter[mcreconcile.Request](time.Millisecond, time.Second))
				q.Add(req("a", "x"))
				q.AddAfter(req("a", "y"), time.Hour)
				q.AddRateLimited(req("b", "z"))
				get(t, q)
				waiting := make(chan struct{})
				go func() {
					defer close(waiting)
					for {
						if _, shutdown := q.Get(); shutdown {
							return
						}
					}
				}()
				q.ShutDown()
				<-waiting
			})
		}
	}
}
