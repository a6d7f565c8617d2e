// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package controller_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

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
		if err := receive(t, done, "the controller did not stop"); err != nil {
			t.Errorf("Start() error = %v", err)
		}
	}
	t.Cleanup(stop)
	return stop
}

func TestEngageStartsSourcesAndRequestsReachTheReconciler(t *testing.T) {
	r := newRecorder()
	c := newController(t, "pipeline", r)
	src := watchFake(t, c)
	// reaches waits for the next source to start, for the named cluster, and checks that a request it queues is
	// reconciled with that cluster in the context.
	reaches := func(name multicluster.ClusterName) startedSource {
		t.Helper()
		st := src.waitStarted(t)
		if st.cluster != name {
			t.Fatalf("started the source of %q, want %s", st.cluster, name)
		}
		st.queue.Add(request(name, "from-"+name.String()))
		if got := r.next(t); got.req != request(name, "from-"+name.String()) || got.ctxCluster != name {
			t.Errorf("reconciled %v in context cluster %q, want %s's request in %s", got.req, got.ctxCluster, name, name)
		}
		return st
	}

	// Engaged before the controller starts: the source starts with the controller.
	disengageA := engage(t, c, "a")
	select {
	case st := <-src.started:
		t.Fatalf("source of %q started before the controller", st.cluster)
	default:
	}
	start(t, c)
	stA := reaches("a")

	// Engaged while the controller runs: the source starts at once.
	engage(t, c, "b")
	stB := reaches("b")

	// Disengaging a ends its source and only its source.
	disengageA()
	stA.waitStopped(t, "the source of a outlived its cluster's engagement")
	stB.checkRunning(t, "disengaging a stopped the source of b")
}

func TestControllerStopEndsEverySource(t *testing.T) {
	c := newController(t, "stop", newRecorder())
	src := watchFake(t, c)
	if err := c.Engage(t.Context(), "a", &fakeCluster{name: "a"}); err != nil {
		t.Fatal(err)
	}
	stop := start(t, c)
	st := src.waitStarted(t)

	stop()
	st.waitStopped(t, "the source outlived the controller")

	// A stopped controller engages nothing.
	if err := c.Engage(t.Context(), "late", &fakeCluster{name: "late"}); err != nil {
		t.Errorf("Engage() after stop error = %v", err)
	}
	if slices.Contains(src.askedFor(), "late") {
		t.Error("a stopped controller built a source for a new cluster")
	}
}

func TestEngageIdempotenceAndReplacement(t *testing.T) {
	c := newController(t, "replace", newRecorder())
	src := watchFake(t, c)
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
	stFirst.waitStopped(t, "the replaced instance's source kept running")
	stSecond.checkRunning(t, "the replacement's source is not running")
}

func TestEngageWithEndedContext(t *testing.T) {
	c := newController(t, "ended", newRecorder())
	src := watchFake(t, c)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := c.Engage(ctx, "a", &fakeCluster{name: "a"})
	if got := src.askedFor(); err != nil || len(got) != 0 {
		t.Errorf("Engage() error = %v, sources built for %q; want no error and none", err, got)
	}
}

func TestMultiClusterWatchAfterEngage(t *testing.T) {
	c := newController(t, "late-watch", newRecorder())
	for _, name := range []multicluster.ClusterName{"a", "b", "ignored"} {
		if err := c.Engage(t.Context(), name, &fakeCluster{name: name}); err != nil {
			t.Fatal(err)
		}
	}
	start(t, c)

	src := watchFake(t, c)
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
	c := newController(t, "broken-source", r)
	broken := newFakeSource()
	broken.err = errors.New("boom")

	if err := c.Engage(t.Context(), "early", &fakeCluster{name: "early"}); err != nil {
		t.Fatal(err)
	}
	err := c.MultiClusterWatch(broken)
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
	src := watchFake(t, c)
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
			src := watchFake(t, c)
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
