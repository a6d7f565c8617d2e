// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package fairness

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// inFlight tracks the reconciles running per request, and whether a request was ever reconciled twice at once.
type inFlight struct {
	mu       sync.Mutex
	running  map[mcreconcile.Request]int
	total    map[mcreconcile.Request]int
	overlaps []mcreconcile.Request
}

func newInFlight() *inFlight {
	return &inFlight{running: map[mcreconcile.Request]int{}, total: map[mcreconcile.Request]int{}}
}

func (f *inFlight) enter(req mcreconcile.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.running[req]++
	f.total[req]++
	if f.running[req] > 1 {
		f.overlaps = append(f.overlaps, req)
	}
}

func (f *inFlight) leave(req mcreconcile.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.running[req]--
}

// counts returns how many reconciles of req are running and how many ran in all.
func (f *inFlight) counts(req mcreconcile.Request) (running, total int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.running[req], f.total[req]
}

// Through mcbuilder and the default queue (fair, with priorities), on real control planes, with more workers than requests:
//   - the same namespace/name in two clusters are two requests, reconciled at the same time;
//   - a request is never reconciled by two workers at once, although it is updated many times while reconciled and
//     idle workers are free to take it;
//   - the updates that arrive while it is reconciled are deduplicated into one more reconcile, not one each.
func TestSameRequestIsNeverReconciledConcurrentlyAndUpdatesAreDeduplicated(t *testing.T) {
	const updates = 50
	ns := fmt.Sprintf("semantics-%d", len(t.Name()))
	members := []string{"member-0", "member-1"}
	for _, m := range members {
		c := harness.Client(t, fleet, m)
		if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); client.IgnoreAlreadyExists(err) != nil {
			t.Fatal(err)
		}
		if err := c.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hot"}}); err != nil {
			t.Fatal(err)
		}
	}

	provider := clusters.New()
	mgr := harness.NewManager(t, fleet.Host(), provider, func(o *mcmanager.Options) {
		o.Controller.SkipNameValidation = ptr.To(true)
	})
	gate := make(chan struct{})
	var openGate sync.Once
	t.Cleanup(func() { openGate.Do(func() { close(gate) }) })
	flights := newInFlight()
	first := map[mcreconcile.Request]*sync.Once{}
	for _, m := range members {
		first[request(m, ns)] = &sync.Once{}
	}
	err := mcbuilder.ControllerManagedBy(mgr).
		Named("semantics").
		For(&corev1.ConfigMap{}).
		WithOptions(mccontroller.Options{MaxConcurrentReconciles: 4}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			flights.enter(req)
			defer flights.leave(req)
			// The first reconcile of each cluster's object holds its worker until the test has updated the object
			// many times.
			if once := first[req]; once != nil {
				once.Do(func() {
					select {
					case <-gate:
					case <-ctx.Done():
					}
				})
			}
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)
	caches := map[string]cluster.Cluster{}
	for _, m := range members {
		cl := harness.NewCluster(t, fleet, m, func(o *cluster.Options) {
			o.Cache.DefaultNamespaces = map[string]cache.Config{ns: {}}
		})
		caches[m] = cl
		if err := provider.Add(t.Context(), multicluster.ClusterName(m), cl); err != nil {
			t.Fatal(err)
		}
	}

	harness.Eventually(t, 0, "both clusters' requests reconciled at the same time", func() bool {
		a, _ := flights.counts(request("member-0", ns))
		b, _ := flights.counts(request("member-1", ns))
		return a == 1 && b == 1
	})

	// Update each object many times while its first reconcile runs; wait until the cluster's cache (which feeds
	// the controller) has the last update.
	for _, m := range members {
		c := harness.Client(t, fleet, m)
		cm := &corev1.ConfigMap{}
		for i := range updates {
			if err := c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "hot"}, cm); err != nil {
				t.Fatal(err)
			}
			cm.Data = map[string]string{"update": fmt.Sprint(i)}
			if err := c.Update(t.Context(), cm); err != nil {
				t.Fatal(err)
			}
		}
		last := cm.ResourceVersion
		harness.Eventually(t, 0, "the last update in "+m+"'s cache", func() bool {
			got := &corev1.ConfigMap{}
			err := caches[m].GetCache().Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "hot"}, got)
			return err == nil && got.ResourceVersion == last
		})
	}
	openGate.Do(func() { close(gate) })

	for _, m := range members {
		req := request(m, ns)
		harness.Eventually(t, 0, m+"'s updates reconciled", func() bool {
			running, total := flights.counts(req)
			return running == 0 && total >= 2
		})
	}
	// One reconcile before the updates, one for all of them; a third at most if an update's event reached the
	// queue only after the second had started. Without deduplication they would keep coming, one per update.
	harness.Consistently(t, dedupWindow, fmt.Sprintf("at most 3 reconciles per cluster for %d updates", updates), func() bool {
		for _, m := range members {
			if _, total := flights.counts(request(m, ns)); total > 3 {
				t.Logf("%s: %d reconciles", m, total)
				return false
			}
		}
		return true
	})
	flights.mu.Lock()
	defer flights.mu.Unlock()
	if len(flights.overlaps) > 0 {
		t.Errorf("requests reconciled by two workers at once: %v", flights.overlaps)
	}
}

// dedupWindow is how long the reconcile counts must stay bounded after the updates were reconciled.
const dedupWindow = 2 * time.Second

func request(clusterName, ns string) mcreconcile.Request {
	return mcreconcile.Request{ClusterName: multicluster.ClusterName(clusterName), Request: reconcile.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: "hot"}}}
}
