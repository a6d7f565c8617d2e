// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package fairness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// queueDepth returns the workqueue depth metric of the named controller's queue.
func queueDepth(t *testing.T, name string) float64 {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var depth float64
	for _, f := range families {
		if f.GetName() != "workqueue_depth" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "name" && l.GetValue() == name {
					depth += m.GetGauge().GetValue()
				}
			}
		}
	}
	return depth
}

// Within a cluster, with the default queue, priorities are honoured end to end, on a real control plane:
//   - a request whose reconcile fails asking, through its Result, for a high priority is retried at once, before
//     the cluster's backlog of requests from the initial list of its cache (which controller-runtime's handlers
//     enqueue at a low priority);
//   - an object created once the cluster has synced (an event at the default priority) is reconciled before that
//     backlog too.
//
// The same run with the fair FIFO queue (UsePriorityQueue=false) reconciles both after the whole backlog.
func TestResultPriorityIsHonouredWithinACluster(t *testing.T) {
	const objects = 100
	ns := fmt.Sprint("priority-", time.Now().UnixNano()%100000)
	c := harness.Client(t, fleet, "member-0")
	if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	backlogNames := make([]string, 0, objects)
	for i := range objects {
		name := fmt.Sprintf("cm-%03d", i)
		backlogNames = append(backlogNames, name)
		if err := c.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	// The hot objects' first reconcile fails and asks for a retry at a high priority.
	hot := []string{"cm-000", "cm-010", "cm-020", "cm-030", "cm-040"}

	tests := []struct {
		name             string
		usePriorityQueue *bool
		priorities       bool
	}{
		{name: "default queue", priorities: true},
		{name: "fair FIFO queue", usePriorityQueue: ptr.To(false)},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fresh := fmt.Sprint("fresh-", i)
			controllerName := fmt.Sprintf("priority-%d-%s", i, ns)
			provider := clusters.New()
			mgr := harness.NewManager(t, fleet.Host(), provider, func(o *mcmanager.Options) {
				o.Controller.SkipNameValidation = ptr.To(true)
			})
			gate := make(chan struct{})
			gated := make(chan struct{})
			var once sync.Once
			var mu sync.Mutex
			var log []string // object names, with "/failed" for a failed reconcile
			failed := map[string]bool{}
			err := mcbuilder.ControllerManagedBy(mgr).
				Named(controllerName).
				For(&corev1.ConfigMap{}).
				WithOptions(mccontroller.Options{
					MaxConcurrentReconciles: 1,
					UsePriorityQueue:        tt.usePriorityQueue,
					// Retries are not delayed: the test is about their order, not their timing.
					RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[mcreconcile.Request](0, 0),
				}).
				Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
					// The first reconcile holds the only worker until the test has queued everything.
					once.Do(func() {
						close(gated)
						<-gate
					})
					mu.Lock()
					defer mu.Unlock()
					if slices.Contains(hot, req.Name) && !failed[req.Name] {
						failed[req.Name] = true
						log = append(log, req.Name+"/failed")
						return reconcile.Result{Priority: ptr.To(10)}, errors.New("hot object: try again, first")
					}
					log = append(log, req.Name)
					return reconcile.Result{}, nil
				}))
			if err != nil {
				t.Fatal(err)
			}
			ready := mcmanager.FleetReadyzCheck(mgr)
			harness.StartManager(t, t.Context(), mgr)
			cl := harness.NewCluster(t, fleet, "member-0", func(o *cluster.Options) {
				o.Cache.DefaultNamespaces = map[string]cache.Config{ns: {}}
			})
			if err := provider.Add(t.Context(), "busy", cl); err != nil {
				t.Fatal(err)
			}
			select {
			case <-gated:
			case <-time.After(harness.DefaultTimeout):
				t.Fatal("no reconcile started")
			}
			// Once the source has synced, every object it listed has been handed to the queue: all but the one
			// being reconciled are pending.
			harness.Eventually(t, 0, "the backlog queued", func() bool { return ready(nil) == nil })
			freshCM := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fresh}}
			if err := c.Create(t.Context(), freshCM); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				// The next run's backlog is the initial list alone.
				if err := c.Delete(context.WithoutCancel(t.Context()), freshCM); err != nil {
					t.Error(err)
				}
			})
			harness.Eventually(t, 0, "the new object queued", func() bool { return queueDepth(t, controllerName) == objects })
			close(gate)

			harness.Eventually(t, 0, "every object reconciled", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(log) >= objects+1+len(hot)
			})
			mu.Lock()
			defer mu.Unlock()
			if len(log) != objects+1+len(hot) {
				t.Fatalf("%d reconciles, want %d: %v", len(log), objects+1+len(hot), log)
			}
			position := map[string]int{}
			for i, entry := range log {
				position[entry] = i
			}
			first := strings.TrimSuffix(log[0], "/failed") // the object whose reconcile held the worker
			lastOfBacklog := 0
			for _, name := range backlogNames {
				if name == first {
					continue
				}
				firstReconcile := position[name]
				if slices.Contains(hot, name) {
					firstReconcile = position[name+"/failed"]
				}
				lastOfBacklog = max(lastOfBacklog, firstReconcile)
				if tt.priorities && position[fresh] > firstReconcile {
					t.Errorf("%s (from the initial list) was reconciled before %s (created later)", name, fresh)
				}
			}
			if !tt.priorities && position[fresh] < lastOfBacklog {
				t.Errorf("%s (created later) was reconciled before the backlog of the initial list", fresh)
			}
			for _, name := range hot {
				retry := position[name]
				if tt.priorities && retry != position[name+"/failed"]+1 {
					t.Errorf("%s was retried %d reconciles after it failed, want right after", name, retry-position[name+"/failed"])
				}
				if !tt.priorities && retry < lastOfBacklog {
					t.Errorf("%s was retried before the backlog was done", name)
				}
			}
			if t.Failed() {
				t.Logf("reconciles: %v", log)
			}
		})
	}
}
