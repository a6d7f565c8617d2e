// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package lifecycle

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	clustersprovider "sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// leakCycles is how many times TestDisengageLeaksNothing engages and disengages a real member cluster.
const leakCycles = 200

// A real member cluster engaged and disengaged many times, with a running manager and a controller watching two
// kinds (For and Owns), leaves no goroutine behind: each cycle builds a new cluster, the provider starts it and
// engages it, the controller reconciles its object, the provider removes it and its Start returns. After a few
// warm-up cycles (client-go's shared transport and connection, the controller's workers) the goroutines are
// recorded; after all cycles exactly those remain.
//
// Anything started per cluster and not tied to its context (a source, an event handler, an informer, a
// retry loop, a context.AfterFunc that never fires) accumulates and is reported with its stack.
func TestDisengageLeaksNothing(t *testing.T) {
	const ns = "lc-leak"
	ensureNamespace(t, "member-0", ns)
	owner := createConfigMap(t, "member-0", ns, "obj")
	owned := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns, Name: "owned",
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, Controller: ptr.To(true),
		}},
	}}
	if err := harness.Client(t, fleet, "member-0").Create(t.Context(), owned); err != nil {
		t.Fatal(err)
	}

	p := clustersprovider.New()
	mgr := newManager(t, p)
	// reconciled receives "<cluster>/<name>" of reconciles; seen receives the instance id of the cluster whose
	// handler saw the object created, so each cycle knows its own cluster's source delivered.
	reconciled, seen := make(chan string, 16), make(chan string, 16)
	err := mcbuilder.ControllerManagedBy(mgr).
		Named("leak").
		For(&corev1.ConfigMap{}).
		Owns(&corev1.Secret{}).
		Watches(&corev1.ConfigMap{}, func(clusterName multicluster.ClusterName, cl cluster.Cluster) handler.TypedEventHandler[client.Object, mcreconcile.Request] {
			instance := instanceOf(cl)
			return handler.TypedFuncs[client.Object, mcreconcile.Request]{
				CreateFunc: func(_ context.Context, e event.TypedCreateEvent[client.Object], _ workqueue.TypedRateLimitingInterface[mcreconcile.Request]) {
					if e.Object.GetName() == "obj" {
						seen <- instance
					}
				},
			}
		}).
		Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			select {
			case reconciled <- req.ClusterName.String() + "/" + req.Name:
			default:
			}
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	cfg := harness.Config(t, fleet, "member-0")
	// minEngaged is the fewest goroutines seen with a cluster engaged and synced, over all cycles (teardowns of
	// earlier cycles still finishing make single readings noisy).
	minEngaged := math.MaxInt
	cycle := func(i int) {
		t.Helper()
		for len(reconciled) > 0 {
			<-reconciled
		}
		id := fmt.Sprintf("leak-%d", i)
		cl := newObservedCluster(t, cfg, ns, id)
		if err := p.Add(t.Context(), "leak", cl); err != nil {
			t.Fatalf("cycle %d: adding: %v", i, err)
		}
		deadline := time.After(shortWait)
		for gotEvent, gotReconcile := false, false; !gotEvent || !gotReconcile; {
			select {
			case instance := <-seen:
				if instance != id {
					t.Fatalf("cycle %d: an event of cluster instance %s was delivered while %s is engaged", i, instance, id)
				}
				gotEvent = true
			case key := <-reconciled:
				gotReconcile = gotReconcile || key == "leak/obj"
			case <-deadline:
				t.Fatalf("cycle %d: the cluster's object was not seen and reconciled within %s", i, shortWait)
			}
		}
		minEngaged = min(minEngaged, runtime.NumGoroutine())
		p.Remove("leak")
		cl.waitStopped(t, shortWait)
	}

	for i := range 3 {
		cycle(i)
	}
	ignore := goleak.IgnoreCurrent()

	began := time.Now()
	for i := range leakCycles {
		cycle(3 + i)
	}
	took := time.Since(began)
	t.Logf("%d engage/disengage cycles in %s (%s per cycle)", leakCycles, took.Round(time.Millisecond), (took / leakCycles).Round(time.Millisecond))

	// Teardown is asynchronous (AfterFuncs, informers stopping): give it time, then report what is left.
	deadline := time.Now().Add(30 * time.Second)
	opts := harness.LeakOptions(ignore)
	for goleak.Find(opts...) != nil && time.Now().Before(deadline) {
		select {
		case <-time.After(100 * time.Millisecond):
		case <-t.Context().Done():
			return
		}
	}
	goleak.VerifyNone(t, opts...)
	settled := runtime.NumGoroutine()
	t.Logf("goroutines: %d with the cluster engaged (fewest seen), %d once all are disengaged: %d per engaged cluster (2 watched kinds, 3 watches)",
		minEngaged, settled, minEngaged-settled)
}
