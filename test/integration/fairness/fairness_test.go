// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package fairness holds integration tests, on real control planes, of how the multi-cluster controller shares its
// workers between clusters and orders its work: a cluster with a deep backlog gets its share of the workers, not all
// of them, whatever the priorities of its requests; within a cluster, requests of higher priority go first.
package fairness

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// backlog is how many ConfigMaps the busy cluster has when it is engaged: as many requests queued at once.
const backlog = 1000

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 2})
}

// orderLog records the clusters of the reconciles, in order.
type orderLog struct {
	mu    sync.Mutex
	order []string
}

func (l *orderLog) add(cluster string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.order = append(l.order, cluster)
}

// before returns how many reconciles of other clusters came before the first of cluster, or -1 if it has none.
func (l *orderLog) before(cluster string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, c := range l.order {
		if c == cluster {
			return i
		}
	}
	return -1
}

// enqueueAt is a handler that enqueues the object of every event, the initial list's included, at its cluster's
// priority when the queue has priorities.
func enqueueAt(priorities map[multicluster.ClusterName]int) mchandler.TypedEventHandlerFunc[client.Object, mcreconcile.Request] {
	return func(name multicluster.ClusterName, _ cluster.Cluster) handler.TypedEventHandler[client.Object, mcreconcile.Request] {
		add := func(obj client.Object, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
			req := mcreconcile.Request{Request: reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)}, ClusterName: name}
			if pq, ok := q.(priorityqueue.PriorityQueue[mcreconcile.Request]); ok {
				pq.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(priorities[name])}, req)
				return
			}
			q.Add(req)
		}
		return handler.TypedFuncs[client.Object, mcreconcile.Request]{
			CreateFunc: func(_ context.Context, e event.TypedCreateEvent[client.Object], q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
				add(e.Object, q)
			},
			UpdateFunc: func(_ context.Context, e event.TypedUpdateEvent[client.Object], q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
				add(e.ObjectNew, q)
			},
		}
	}
}

// starvation runs one controller with one worker over a busy cluster whose whole backlog is queued at a high
// priority and a quiet cluster with one object queued after it at a low priority, and returns how many of the busy
// cluster's reconciles ran before the quiet cluster's first. options pick the queue; the zero value is the default.
func starvation(t *testing.T, ns string, options mccontroller.Options) int {
	t.Helper()
	provider := clusters.New()
	mgr := harness.NewManager(t, fleet.Host(), provider, func(o *mcmanager.Options) {
		o.Controller.SkipNameValidation = ptr.To(true)
	})
	gate := make(chan struct{})
	gated := make(chan struct{})
	var once sync.Once
	log := &orderLog{}
	options.MaxConcurrentReconciles = 1
	err := mcbuilder.ControllerManagedBy(mgr).
		Named("fairness").
		Watches(&corev1.ConfigMap{}, enqueueAt(map[multicluster.ClusterName]int{"busy": 100, "quiet": handler.LowPriority})).
		WithOptions(options).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			// The first reconcile holds the only worker until the test has queued everything.
			once.Do(func() {
				close(gated)
				<-gate
			})
			log.add(req.ClusterName.String())
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	ready := mcmanager.FleetReadyzCheck(mgr)
	harness.StartManager(t, t.Context(), mgr)

	add := func(name, member string) {
		t.Helper()
		cl := harness.NewCluster(t, fleet, member, func(o *cluster.Options) {
			o.Cache.DefaultNamespaces = map[string]cache.Config{ns: {}}
		})
		if err := provider.Add(t.Context(), multicluster.ClusterName(name), cl); err != nil {
			t.Fatal(err)
		}
	}
	add("busy", "member-0")
	select {
	case <-gated:
	case <-time.After(harness.DefaultTimeout):
		t.Fatal("no reconcile started")
	}
	// Once a cluster's source has synced, every object it listed has been handed to the queue.
	harness.Eventually(t, 0, "busy's backlog queued", func() bool { return ready(nil) == nil })
	add("quiet", "member-1")
	harness.Eventually(t, 0, "quiet's object queued", func() bool { return ready(nil) == nil })
	close(gate)

	harness.Eventually(t, 0, "quiet reconciled", func() bool { return log.before("quiet") >= 0 })
	return log.before("quiet")
}

// setUp creates a namespace with backlog ConfigMaps in member-0 and one in member-1.
func setUp(t *testing.T, prefix string) string {
	t.Helper()
	ns := prefix + "-" + strings.ToLower(fmt.Sprint(time.Now().UnixNano()%100000))
	for _, member := range []string{"member-0", "member-1"} {
		c := harness.Client(t, fleet, member)
		if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	c := harness.Client(t, fleet, "member-0")
	for i := range backlog {
		if err := c.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%04d", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := harness.Client(t, fleet, "member-1").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "only"}}); err != nil {
		t.Fatal(err)
	}
	return ns
}

// With the default queue (fair across clusters, with priorities within each), a quiet cluster whose request
// arrives, at a low priority, behind a busy cluster's backlog of a thousand requests at a high priority is
// reconciled after at most a couple of the busy cluster's: clusters take turns, whatever their priorities. So it is
// with the fair FIFO queue (UsePriorityQueue=false). The same run with controller-runtime's FIFO queue, or its
// priority queue, shows what fairness prevents: the quiet cluster waits for the whole backlog.
func TestBusyClusterDoesNotStarveQuietOne(t *testing.T) {
	ns := setUp(t, "fair")

	tests := []struct {
		name    string
		options mccontroller.Options
		fair    bool
	}{
		{name: "default queue", fair: true},
		{name: "fair FIFO queue", options: mccontroller.Options{UsePriorityQueue: ptr.To(false)}, fair: true},
		{name: "FIFO queue", options: mccontroller.Options{NewQueue: mccontroller.NewFIFOQueue[mcreconcile.Request]}},
		{name: "controller-runtime's priority queue", options: mccontroller.Options{
			NewQueue: func(name string, rateLimiter workqueue.TypedRateLimiter[mcreconcile.Request]) workqueue.TypedRateLimitingInterface[mcreconcile.Request] {
				return priorityqueue.New(name, func(o *priorityqueue.Opts[mcreconcile.Request]) { o.RateLimiter = rateLimiter })
			},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := starvation(t, ns, tt.options)
			t.Logf("%s: %d reconciles of busy before quiet's", tt.name, before)
			switch {
			case tt.fair && before > 2:
				t.Errorf("%d reconciles of the busy cluster ran before the quiet cluster's; want at most 2", before)
			case !tt.fair && before < backlog/2:
				t.Errorf("only %d reconciles of the busy cluster ran before the quiet cluster's; the test does not "+
					"build the backlog it means to", before)
			}
		})
	}
}
