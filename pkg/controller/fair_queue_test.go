package controller

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

func req(cluster, name string) mcreconcile.Request {
	return mcreconcile.Request{
		Request:     reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: name}},
		ClusterName: cluster,
	}
}

func newTestFairQueue(t *testing.T) workqueue.TypedRateLimitingInterface[mcreconcile.Request] {
	t.Helper()
	q := NewFairQueue[mcreconcile.Request]("", workqueue.NewTypedItemExponentialFailureRateLimiter[mcreconcile.Request](time.Millisecond, time.Second))
	t.Cleanup(q.ShutDown)
	return q
}

// get takes the next request and marks it done.
func get(t *testing.T, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) mcreconcile.Request {
	t.Helper()
	item, shutdown := q.Get()
	if shutdown {
		t.Fatal("queue shut down")
	}
	q.Done(item)
	return item
}

func TestFairQueueServesClustersRoundRobin(t *testing.T) {
	q := newTestFairQueue(t)
	for i := range 100 {
		q.Add(req("noisy", fmt.Sprint(i)))
	}
	q.Add(req("quiet-a", "x"))
	q.Add(req("quiet-b", "y"))

	// Both quiet clusters are served within the first round, however deep the noisy backlog.
	served := map[string]int{}
	for range 3 {
		served[get(t, q).ClusterName]++
	}
	if served["quiet-a"] != 1 || served["quiet-b"] != 1 || served["noisy"] != 1 {
		t.Fatalf("first round served %v, want one request of each cluster", served)
	}
	// FIFO within a cluster.
	if got := get(t, q); got.Name != "1" {
		t.Fatalf("got %v, want noisy request 1", got)
	}
}

func TestFairQueueNewClusterWaitsAtMostOneRound(t *testing.T) {
	q := newTestFairQueue(t)
	for _, c := range []string{"a", "b", "c"} {
		for i := range 10 {
			q.Add(req(c, fmt.Sprint(i)))
		}
	}
	get(t, q) // a
	q.Add(req("late", "z"))
	order := make([]string, 0, 4)
	for range 4 {
		order = append(order, get(t, q).ClusterName)
	}
	found := false
	for _, c := range order {
		found = found || c == "late"
	}
	if !found {
		t.Fatalf("late cluster not served within a round: %v", order)
	}
}

func TestFairQueueKeepsWorkqueueSemantics(t *testing.T) {
	q := newTestFairQueue(t)

	// Deduplication of pending requests.
	q.Add(req("a", "x"))
	q.Add(req("a", "x"))
	if q.Len() != 1 {
		t.Fatalf("Len = %d after adding the same request twice, want 1", q.Len())
	}

	// A request being processed is not handed out again until Done, and then exactly once.
	item, _ := q.Get()
	q.Add(item)
	if q.Len() != 0 {
		t.Fatalf("Len = %d while the request is processed, want 0", q.Len())
	}
	q.Done(item)
	if q.Len() != 1 {
		t.Fatalf("Len = %d after Done of a re-added request, want 1", q.Len())
	}
	get(t, q)

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
}

func TestFairQueueForgetClusterDrainsFirst(t *testing.T) {
	q := newTestFairQueue(t)
	for i := range 5 {
		q.Add(req("keep", fmt.Sprint(i)))
	}
	for i := range 3 {
		q.Add(req("gone", fmt.Sprint(i)))
	}
	q.(clusterForgetter).ForgetCluster("gone")
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
	seen := map[string]int{}
	for q.Len() > 0 {
		seen[get(t, q).ClusterName]++
	}
	if seen["keep"] != 5 || seen["gone"] != 1 {
		t.Fatalf("served %v", seen)
	}
}

func TestFairQueueShutDown(t *testing.T) {
	q := newTestFairQueue(t)
	q.Add(req("a", "x"))
	q.ShutDown()
	if !q.ShuttingDown() {
		t.Fatal("not shutting down")
	}
	if _, shutdown := q.Get(); shutdown {
		t.Fatal("pending request lost at shutdown")
	}
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("Get after draining did not report shutdown")
	}
}
