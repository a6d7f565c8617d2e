// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded_test

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
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/sharder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// managedReplica is a replica run as a real multi-cluster manager with a sharded coordinator.
type managedReplica struct {
	id    string
	mgr   mcmanager.Manager
	coord *sharded.Coordinator
	stop  func()
}

// newManagedReplica builds a manager of the host whose fleet is the host's namespaces (providers/namespace), with
// a sharded coordinator using plain rendezvous hashing, so that which replica owns a namespace does not depend on
// the other namespaces of the shared test API server.
func (e *env) newManagedReplica(id string) *managedReplica {
	e.t.Helper()
	coord := sharded.New(e.cli, logf.Log.WithName(id), append(e.options(e.cli, id, 1), sharded.WithSharder(sharder.NewHRW()))...)
	shared, err := cluster.New(e.cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	mgr := harness.NewManager(e.t, e.cfg, namespace.New(shared), nil, mcmanager.WithCoordinator(coord))
	if err := mgr.GetLocalManager().Add(shared); err != nil {
		e.t.Fatal(err)
	}
	return &managedReplica{id: id, mgr: mgr, coord: coord}
}

// The trap of handing a cluster over by cancelling its watches only: requests queued for the cluster, and the
// reconcile in flight, would go on running on the old owner. Here replica a reconciles the cluster (a namespace)
// with one worker, blocked in a reconcile that ignores its context, while five more requests for the cluster queue
// up behind it. When b joins and the cluster moves to b, a drops the queued requests, b waits until a's reconcile
// has returned and starts at once after; a never reconciles the cluster again.
func TestHandoffDropsQueuedRequestsAndWaitsForReconcilesInFlight(t *testing.T) {
	e := newEnv(t)
	// x is a namespace that rendezvous hashing gives to b rather than a.
	var x string
	for i := 0; x == ""; i++ {
		if n := fmt.Sprintf("trap-%s-%d", e.ns, i); !sharder.NewHRW().ShouldOwn(n, []sharder.PeerInfo{{ID: "a"}, {ID: "b"}}, sharder.PeerInfo{ID: "a"}) {
			x = n
		}
	}
	if err := e.cli.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: x}}); err != nil {
		t.Fatal(err)
	}
	createCM := func(name string) {
		t.Helper()
		if err := e.cli.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: x, Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	createCM("block")

	var mu sync.Mutex
	var reconciles []interval
	blocked, release := make(chan struct{}), make(chan struct{})
	var blockOnce sync.Once
	setup := func(r *managedReplica) {
		err := mcbuilder.ControllerManagedBy(r.mgr).
			Named("trap-" + r.id + "-" + e.ns).
			For(&corev1.ConfigMap{}).
			WithOptions(controller.TypedOptions[mcreconcile.Request]{MaxConcurrentReconciles: 1}).
			Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
				if req.ClusterName != multicluster.ClusterName(x) {
					return reconcile.Result{}, nil
				}
				iv := interval{replica: r.id, cluster: multicluster.ClusterName(x + "/" + req.Name), start: time.Now()}
				if r.id == "a" && req.Name == "block" {
					blockOnce.Do(func() { close(blocked) })
					<-release // a slow reconcile that does not look at its context
				}
				iv.end = time.Now()
				mu.Lock()
				reconciles = append(reconciles, iv)
				mu.Unlock()
				return reconcile.Result{}, nil
			}))
		if err != nil {
			t.Fatal(err)
		}
		r.stop = harness.StartManager(t, t.Context(), r.mgr)
	}

	a := e.newManagedReplica("a")
	setup(a)
	select {
	case <-blocked:
	case <-time.After(harness.DefaultTimeout):
		t.Fatal("a did not reconcile the cluster")
	}
	for i := range 5 {
		createCM(fmt.Sprintf("queued-%d", i))
	}

	b := e.newManagedReplica("b")
	setup(b)
	cluster := multicluster.ClusterName(x)
	harness.Eventually(t, 10*time.Second, "a to give the cluster up", func() bool { return !contains(a.coord.Owned(), cluster) })
	harness.Consistently(t, 2*time.Second, "b not to own the cluster while a's reconcile is in flight", func() bool {
		return !contains(b.coord.Owned(), cluster)
	})
	released := time.Now()
	close(release)
	harness.Eventually(t, 10*time.Second, "b to reconcile every ConfigMap of the cluster", func() bool {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, iv := range reconciles {
			if iv.replica == "b" {
				n++
			}
		}
		return n >= 6
	})
	// a stops first: were b to stop first, a would own the cluster again, rightly.
	a.stop()
	b.stop()

	mu.Lock()
	defer mu.Unlock()
	var aEnd, bStart time.Time
	for _, iv := range reconciles {
		switch {
		case iv.replica == "a" && strings.HasSuffix(iv.cluster.String(), "/block"):
			aEnd = iv.end
		case iv.replica == "a":
			t.Errorf("a reconciled %s, a request queued before it gave the cluster up", iv.cluster)
		case bStart.IsZero() || iv.start.Before(bStart):
			bStart = iv.start
		}
	}
	if !bStart.After(aEnd) {
		t.Errorf("b started reconciling the cluster at %s, before a's reconcile in flight returned at %s", bStart.Format(time.StampMilli), aEnd.Format(time.StampMilli))
	}
	if took := bStart.Sub(released); took > time.Second {
		t.Errorf("b started %s after a's reconcile returned, more than 1s", took)
	}
	t.Logf("b started reconciling the cluster %s after a's reconcile in flight returned", bStart.Sub(aEnd).Round(time.Millisecond))
}

// neverSyncs is a multi-cluster source whose per-cluster sources never sync.
type neverSyncs struct{}

func (neverSyncs) ForCluster(multicluster.ClusterName, cluster.Cluster) (source.TypedSource[mcreconcile.Request], bool, error) {
	return neverSyncing{}, true, nil
}

type neverSyncing struct{}

func (neverSyncing) Start(context.Context, workqueue.TypedRateLimitingInterface[mcreconcile.Request]) error {
	return nil
}

func (neverSyncing) WaitForSync(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

// The fleet readiness check of a replica counts only the clusters it owns: with a source that never syncs, each
// replica's check names exactly its own clusters, not the whole fleet.
func TestFleetReadinessCountsOwnedClustersOnly(t *testing.T) {
	e := newEnv(t)
	names := clusterNames(8)
	rs := make([]*managedReplica, 0, 2)
	for _, id := range []string{"a", "b"} {
		coord := sharded.New(e.cli, logf.Log.WithName(id), e.options(e.cli, id, 1)...)
		mgr := harness.NewManager(t, e.cfg, nil, nil, mcmanager.WithCoordinator(coord))
		c, err := mccontroller.New("readiness-"+id+"-"+e.ns, mgr, mccontroller.Options{
			Reconciler: mcreconcile.Func(func(context.Context, mcreconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.MultiClusterWatch(neverSyncs{}); err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if err := mgr.Engage(t.Context(), n, &fakeCluster{name: n}); err != nil {
				t.Fatal(err)
			}
		}
		r := &managedReplica{id: id, mgr: mgr, coord: coord}
		r.stop = harness.StartManager(t, t.Context(), mgr)
		rs = append(rs, r)
	}
	harness.Eventually(t, 30*time.Second, "the replicas to split the clusters", func() bool {
		return len(rs[0].coord.Owned())+len(rs[1].coord.Owned()) == len(names) && len(rs[0].coord.Owned()) > 0 && len(rs[1].coord.Owned()) > 0
	})
	for _, r := range rs {
		owned := r.coord.Owned()
		check := mcmanager.FleetReadyzCheck(r.mgr)
		harness.Eventually(t, 10*time.Second, "replica "+r.id+"'s readiness to name its own clusters", func() bool {
			err := check(nil)
			return err != nil && strings.HasPrefix(err.Error(), fmt.Sprintf("%d cluster(s) not synced yet", len(owned)))
		})
		msg := check(nil).Error()
		for _, n := range names {
			if strings.Contains(msg, n.String()) != contains(owned, n) {
				t.Errorf("replica %s's readiness (%q) and its clusters %v disagree about %s", r.id, msg, owned, n)
			}
		}
	}
	for _, r := range rs {
		r.stop()
	}
}
