package controller_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// start runs c until the test ends and returns a function that stops it and waits for it to return.
func start(t *testing.T, c mccontroller.Controller) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Start() error = %v", err)
			}
		case <-time.After(wait.ForeverTestTimeout):
			t.Error("the controller did not stop")
		}
	}
	t.Cleanup(stop)
	return stop
}

func TestEngageStartsSourcesAndRequestsReachTheReconciler(t *testing.T) {
	r := newRecorder()
	c, err := mccontroller.NewUnmanaged("pipeline", newManager(t), mccontroller.Options{Reconciler: r})
	if err != nil {
		t.Fatal(err)
	}
	src := newFakeSource()
	if err := c.MultiClusterWatch(src); err != nil {
		t.Fatal(err)
	}

	// Engaged before the controller starts: the source starts with the controller.
	engagementA, disengageA := context.WithCancel(t.Context())
	defer disengageA()
	if err := c.Engage(engagementA, "a", &fakeCluster{name: "a"}); err != nil {
		t.Fatal(err)
	}
	select {
	case st := <-src.started:
		t.Fatalf("source of %q started before the controller", st.cluster)
	default:
	}

	start(t, c)
	stA := src.waitStarted(t)
	if stA.cluster != "a" {
		t.Fatalf("started the source of %q, want a", stA.cluster)
	}
	stA.queue.Add(request("a", "from-a"))
	if got := r.next(t); got.req != request("a", "from-a") || got.ctxCluster != "a" {
		t.Errorf("reconciled %v in context cluster %q, want a's request in a", got.req, got.ctxCluster)
	}

	// Engaged while the controller runs: the source starts at once.
	if err := c.Engage(t.Context(), "b", &fakeCluster{name: "b"}); err != nil {
		t.Fatal(err)
	}
	stB := src.waitStarted(t)
	if stB.cluster != "b" {
		t.Fatalf("started the source of %q, want b", stB.cluster)
	}
	stB.queue.Add(request("b", "from-b"))
	if got := r.next(t); got.req != request("b", "from-b") || got.ctxCluster != "b" {
		t.Errorf("reconciled %v in context cluster %q, want b's request in b", got.req, got.ctxCluster)
	}

	// Disengaging a ends its source and only its source.
	disengageA()
	select {
	case <-stA.ctx.Done():
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("the source of a outlived its cluster's engagement")
	}
	if stB.ctx.Err() != nil {
		t.Error("disengaging a stopped the source of b")
	}
}

func TestControllerStopEndsEverySource(t *testing.T) {
	c, err := mccontroller.NewUnmanaged("stop", newManager(t), mccontroller.Options{Reconciler: newRecorder()})
	if err != nil {
		t.Fatal(err)
	}
	src := newFakeSource()
	if err := c.MultiClusterWatch(src); err != nil {
		t.Fatal(err)
	}
	if err := c.Engage(t.Context(), "a", &fakeCluster{name: "a"}); err != nil {
		t.Fatal(err)
	}
	stop := start(t, c)
	st := src.waitStarted(t)

	stop()
	select {
	case <-st.ctx.Done():
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("the source outlived the controller")
	}

	// A stopped controller engages nothing.
	if err := c.Engage(t.Context(), "late", &fakeCluster{name: "late"}); err != nil {
		t.Errorf("Engage() after stop error = %v", err)
	}
	if slices.Contains(src.askedFor(), "late") {
		t.Error("a stopped controller built a source for a new cluster")
	}
}

func TestEngageIdempotenceAndReplacement(t *testing.T) {
	c, err := mccontroller.NewUnmanaged("replace", newManager(t), mccontroller.Options{Reconciler: newRecorder()})
	if err != nil {
		t.Fatal(err)
	}
	src := newFakeSource()
	if err := c.MultiClusterWatch(src); err != nil {
		t.Fatal(err)
	}
	start(t, c)

	first, second := &fakeCluster{name: "a-1"}, &fakeCluster{name: "a-2"}
	for range 3 {
		if err := c.Engage(t.Context(), "a", first); err != nil {
			t.Fatal(err)
		}
	}
	if got := src.askedFor(); !slices.Equal(got, []multicluster.ClusterName{"a"}) {
		t.Fatalf("sources built for %q, want a once", got)
	}
	stFirst := src.waitStarted(t)

	if err := c.Engage(t.Context(), "a", second); err != nil {
		t.Fatal(err)
	}
	if got := src.askedFor(); !slices.Equal(got, []multicluster.ClusterName{"a", "a"}) {
		t.Fatalf("sources built for %q, want a twice after the replacement", got)
	}
	stSecond := src.waitStarted(t)
	select {
	case <-stFirst.ctx.Done():
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("the replaced instance's source kept running")
	}
	if stSecond.ctx.Err() != nil {
		t.Error("the replacement's source is not running")
	}
}

func TestEngageWithEndedContext(t *testing.T) {
	c, err := mccontroller.NewUnmanaged("ended", newManager(t), mccontroller.Options{Reconciler: newRecorder()})
	if err != nil {
		t.Fatal(err)
	}
	src := newFakeSource()
	if err := c.MultiClusterWatch(src); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.Engage(ctx, "a", &fakeCluster{name: "a"}); err != nil {
		t.Errorf("Engage() error = %v", err)
	}
	if got := src.askedFor(); len(got) != 0 {
		t.Errorf("sources built for %q, want none", got)
	}
}

func TestMultiClusterWatchAfterEngage(t *testing.T) {
	c, err := mccontroller.NewUnmanaged("late-watch", newManager(t), mccontroller.Options{Reconciler: newRecorder()})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []multicluster.ClusterName{"a", "b", "ignored"} {
		if err := c.Engage(t.Context(), name, &fakeCluster{name: name}); err != nil {
			t.Fatal(err)
		}
	}
	start(t, c)

	src := newFakeSource()
	if err := c.MultiClusterWatch(src); err != nil {
		t.Fatal(err)
	}
	if got := src.askedFor(); !slices.Equal(slices.Sorted(slices.Values(got)), []multicluster.ClusterName{"a", "b", "ignored"}) {
		t.Errorf("sources built for %q, want every engaged cluster", got)
	}
	started := []multicluster.ClusterName{src.waitStarted(t).cluster, src.waitStarted(t).cluster}
	if slices.Sort(started); !slices.Equal(started, []multicluster.ClusterName{"a", "b"}) {
		t.Errorf("started sources of %q, want a and b (the source declined ignored)", started)
	}
}

func TestSourceErrorsNameTheCluster(t *testing.T) {
	r := newRecorder()
	c, err := mccontroller.NewUnmanaged("broken-source", newManager(t), mccontroller.Options{Reconciler: r})
	if err != nil {
		t.Fatal(err)
	}
	broken := newFakeSource()
	broken.err = errors.New("boom")

	if err := c.Engage(t.Context(), "early", &fakeCluster{name: "early"}); err != nil {
		t.Fatal(err)
	}
	err = c.MultiClusterWatch(broken)
	if err == nil || !strings.Contains(err.Error(), `"early"`) || !strings.Contains(err.Error(), `"broken-source"`) || !strings.Contains(err.Error(), "boom") {
		t.Errorf("MultiClusterWatch() error = %v, want one naming the controller, the cluster and the cause", err)
	}

	err = c.Engage(t.Context(), "late", &fakeCluster{name: "late"})
	if err == nil || !strings.Contains(err.Error(), `"late"`) || !strings.Contains(err.Error(), "boom") {
		t.Errorf("Engage() error = %v, want one naming the cluster and the cause", err)
	}

	// Nothing was engaged for late: its requests are dropped like those of any unknown cluster.
	if _, err := c.Reconcile(t.Context(), request("late", "obj")); err != nil {
		t.Errorf("Reconcile() error = %v", err)
	}
	r.none(t)
}

func TestManagedControllerIsEngagedByTheManager(t *testing.T) {
	m := newManager(t)
	if err := m.Engage(t.Context(), "before", &fakeCluster{name: "before"}); err != nil {
		t.Fatal(err)
	}
	c, err := mccontroller.New("managed", m, mccontroller.Options{Reconciler: newRecorder()})
	if err != nil {
		t.Fatal(err)
	}
	src := newFakeSource()
	if err := c.MultiClusterWatch(src); err != nil {
		t.Fatal(err)
	}
	if err := m.Engage(t.Context(), "after", &fakeCluster{name: "after"}); err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(slices.Values(src.askedFor())); !slices.Equal(got, []multicluster.ClusterName{"after", "before"}) {
		t.Errorf("sources built for %q, want the clusters engaged before and after the controller was created", got)
	}
}

func TestQueueKinds(t *testing.T) {
	tests := []struct {
		name         string
		options      mccontroller.Options
		wantPriority bool
	}{
		{name: "default", options: mccontroller.Options{}, wantPriority: true},
		{name: "priority queue", options: mccontroller.Options{UsePriorityQueue: ptr.To(true)}, wantPriority: true},
		{name: "priority queue off", options: mccontroller.Options{UsePriorityQueue: ptr.To(false)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecorder()
			tt.options.Reconciler = r
			c, err := mccontroller.NewUnmanaged("queue-"+strings.ReplaceAll(tt.name, " ", "-"), newManager(t), tt.options)
			if err != nil {
				t.Fatal(err)
			}
			src := newFakeSource()
			if err := c.MultiClusterWatch(src); err != nil {
				t.Fatal(err)
			}
			if err := c.Engage(t.Context(), "a", &fakeCluster{name: "a"}); err != nil {
				t.Fatal(err)
			}
			start(t, c)

			st := src.waitStarted(t)
			if _, ok := st.queue.(priorityqueue.PriorityQueue[mcreconcile.Request]); ok != tt.wantPriority {
				t.Errorf("the sources' queue is a priority queue: %v, want %v", ok, tt.wantPriority)
			}
			st.queue.Add(request("a", "obj"))
			if got := r.next(t); got.req != request("a", "obj") {
				t.Errorf("reconciled %v, want a's request", got.req)
			}
		})
	}
}
