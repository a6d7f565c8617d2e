// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package patterns

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	clustersprovider "sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Gettable before engaged: with the ClusterNotFoundWrapper off, a reconciler that looks up the cluster of every
// request with mgr.GetCluster never gets an error, for objects that existed before their cluster was added and for
// objects created right after, while six clusters (two per member control plane) are added concurrently to a
// running manager. Every one of those objects is reconciled in every cluster that shows it, so none was dropped
// as "not found" either.
//
// To make the window between "events flow" and "engaging is over" wide instead of microseconds, a cluster-aware
// runnable registered after the controller holds each engagement open until the controller has reconciled a
// first request of that cluster: those first reconciles run while the manager is still engaging the cluster.
func TestClustersGettableBeforeTheirEventsArrive(t *testing.T) {
	const ns = "pat-gettable"
	createNamespace(t, ns, members...)
	for _, name := range members {
		createConfigMap(t, name, ns, "pre", nil)
	}

	provider := clustersprovider.New()
	mgr := harness.NewManager(t, fleet.Host(), provider, nil)
	rec := harness.NewRecorder()
	gate := newFirstReconcileGate()
	var lookupErrors atomic.Int32
	var firstErr atomic.Value
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named("patterns-gettable").
		For(&corev1.ConfigMap{}).
		WithEventFilter(inNamespace(ns)).
		WithClusterNotFoundWrapper(false).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			defer gate.reconciled(req.ClusterName.String())
			if _, err := mgr.GetCluster(ctx, req.ClusterName); err != nil {
				lookupErrors.Add(1)
				firstErr.CompareAndSwap(nil, fmt.Sprintf("%s: %v", req, err))
				return reconcile.Result{}, err
			}
			rec.Add(key(req.ClusterName, req.Namespace, req.Name))
			return reconcile.Result{}, nil
		})); err != nil {
		t.Fatal(err)
	}
	if err := mgr.Add(gate); err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	type added struct {
		name, member string
		cl           cluster.Cluster
	}
	clusters := make([]added, 0, 6)
	for i := range 6 {
		member := members[i%len(members)]
		clusters = append(clusters, added{name: fmt.Sprintf("gettable-%d", i), member: member, cl: harness.NewCluster(t, fleet, member)})
	}
	clients := map[string]client.Client{}
	for _, name := range members {
		clients[name] = harness.Client(t, fleet, name)
	}

	var wg sync.WaitGroup
	errs := make(chan error, 2*len(clusters))
	for _, c := range clusters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := provider.Add(t.Context(), multicluster.ClusterName(c.name), c.cl); err != nil {
				errs <- fmt.Errorf("adding %s: %w", c.name, err)
				return
			}
			post := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "post-" + c.name}}
			if err := clients[c.member].Create(t.Context(), post); err != nil {
				errs <- fmt.Errorf("creating %s in %s: %w", post.Name, c.member, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	for _, c := range clusters {
		for _, other := range clusters {
			if other.member != c.member {
				continue
			}
			k := key(multicluster.ClusterName(c.name), ns, "post-"+other.name)
			harness.Eventually(t, shortTimeout, "reconcile of "+k, func() bool { return rec.Has(k) })
		}
		k := key(multicluster.ClusterName(c.name), ns, "pre")
		harness.Eventually(t, shortTimeout, "reconcile of "+k, func() bool { return rec.Has(k) })
	}
	if n := lookupErrors.Load(); n != 0 {
		t.Fatalf("mgr.GetCluster failed %d times, first: %v", n, firstErr.Load())
	}
	if n := gate.timeouts.Load(); n != 0 {
		t.Fatalf("%d clusters were not reconciled while they were being engaged: the test did not exercise the window", n)
	}
}

// firstReconcileGate is a cluster-aware runnable whose Engage returns only once the controller has reconciled a
// first request of the cluster (or after shortTimeout, which is counted).
type firstReconcileGate struct {
	mu       sync.Mutex
	first    map[string]chan struct{}
	timeouts atomic.Int32
}

func newFirstReconcileGate() *firstReconcileGate {
	return &firstReconcileGate{first: map[string]chan struct{}{}}
}

func (g *firstReconcileGate) ch(name string) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	ch, ok := g.first[name]
	if !ok {
		ch = make(chan struct{})
		g.first[name] = ch
	}
	return ch
}

func (g *firstReconcileGate) reconciled(name string) {
	ch := g.ch(name)
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-ch:
	default:
		close(ch)
	}
}

func (g *firstReconcileGate) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (g *firstReconcileGate) Engage(ctx context.Context, name multicluster.ClusterName, _ cluster.Cluster) error {
	timer := time.NewTimer(shortTimeout)
	defer timer.Stop()
	select {
	case <-g.ch(name.String()):
	case <-ctx.Done():
	case <-timer.C:
		g.timeouts.Add(1)
	}
	return nil
}
