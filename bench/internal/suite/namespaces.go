// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
)

// roundAnnotation carries the number of the update round that last wrote an object.
const roundAnnotation = "bench.multicluster-runtime.sigs.k8s.io/round"

// rounds records, for every object, the highest update round a reconcile has read.
type rounds struct {
	mu   sync.Mutex
	seen map[types.NamespacedName]int
}

func newRounds() *rounds { return &rounds{seen: map[types.NamespacedName]int{}} }

// observe records what a reconcile read from its cache: the object's round (0 before any update).
func (r *rounds) observe(key types.NamespacedName, cm *corev1.ConfigMap) {
	round, _ := strconv.Atoi(cm.Annotations[roundAnnotation])
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.seen[key]; !ok || round > prev {
		r.seen[key] = round
	}
}

// reached counts the objects whose reconciles have read round or a later one.
func (r *rounds) reached(round int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, v := range r.seen {
		if v >= round {
			n++
		}
	}
	return n
}

// namespacesArm runs n namespaces' controller one way: the floor (one plain Manager watching all namespaces) or
// virtual clusters (the namespace provider).
type namespacesArm struct {
	name  string
	start func(ctx context.Context, fleet *mcenvtest.Fleet, runName string, seen *rounds) (stop func() error, err error)
}

// sharedCacheOptions is the cache of the namespaces scenario, the floor's and the virtual clusters' alike:
// Namespaces and ConfigMaps of the run, selected by label.
func sharedCacheOptions(o *cache.Options, runName string) {
	sel := labels.SelectorFromSet(labels.Set{runLabel: strings.Trim(runName, "-")})
	o.ByObject = map[client.Object]cache.ByObject{
		&corev1.Namespace{}: {Label: sel},
		&corev1.ConfigMap{}: {Label: sel},
	}
}

// startFloor runs one plain controller-runtime Manager whose cache holds the Namespaces and ConfigMaps of the run
// (the namespaces a program would track to know its tenants, and their objects), with a ConfigMap controller of
// steadyWorkers workers that reads each object from the cache.
func startFloor(ctx context.Context, fleet *mcenvtest.Fleet, runName string, seen *rounds) (func() error, error) {
	opts := manager.Options{Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"}
	sharedCacheOptions(&opts.Cache, runName)
	mgr, err := manager.New(fleet.Host(), opts)
	if err != nil {
		return nil, err
	}
	if _, err := mgr.GetCache().GetInformer(ctx, &corev1.Namespace{}, cache.BlockUntilSynced(false)); err != nil {
		return nil, err
	}
	c := mgr.GetClient()
	if err := builder.ControllerManagedBy(mgr).Named(fmt.Sprintf("floor-%d", time.Now().UnixNano())).
		For(&corev1.ConfigMap{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: steadyWorkers}).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			cm := &corev1.ConfigMap{}
			if err := c.Get(ctx, req.NamespacedName, cm); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			seen.observe(req.NamespacedName, cm)
			return reconcile.Result{}, nil
		})); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() error { cancel(); return <-done }, nil
}

// startVirtual runs the namespaces of the run as virtual clusters: a shared cluster with the floor's cache, the
// namespace provider and a multi-cluster manager with the same ConfigMap controller, reading each object through
// its virtual cluster's client.
func startVirtual(ctx context.Context, fleet *mcenvtest.Fleet, runName string, seen *rounds) (func() error, error) {
	shared, err := virtualClusters(fleet.Host(), runName)
	if err != nil {
		return nil, err
	}
	mgr, err := newManager(fleet.Host(), namespace.New(shared))
	if err != nil {
		return nil, err
	}
	if err := mgr.GetLocalManager().Add(shared); err != nil {
		return nil, err
	}
	if err := mcbuilder.ControllerManagedBy(mgr).Named(fmt.Sprintf("virtual-%d", time.Now().UnixNano())).
		For(&corev1.ConfigMap{}).
		WithOptions(mccontroller.Options{MaxConcurrentReconciles: steadyWorkers}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return reconcile.Result{}, nil //nolint:nilerr // a namespace on its way out
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			// The virtual cluster presents its namespace as "default": key the object by its real namespace.
			seen.observe(types.NamespacedName{Namespace: req.ClusterName.String(), Name: req.Name}, cm)
			return reconcile.Result{}, nil
		})); err != nil {
		return nil, err
	}
	return run(ctx, mgr), nil
}

// Namespaces compares n namespaces as virtual clusters with the floor, one plain controller-runtime Manager
// watching all of them, each namespace holding one ConfigMap. First each arm runs alone: heap per namespace once
// every object has been reconciled and the process has settled, goroutines added, and the most goroutines that ran
// at once while it engaged. Then both run side by side, watching the same objects, for rounds of updates (a write to
// each of the n objects, from 8 writers at once): each round times, for each arm, the time until every reconcile has
// read its write. Side by side, both arms see the same writes and the same load on the machine, which makes their
// ratio far steadier than timing them one after the other.
func Namespaces(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, n, updateRounds int, o Options) error {
	const runName = "nsf-"
	w, err := writer(fleet.Host())
	if err != nil {
		return err
	}
	nsOf := func(i int) string { return fmt.Sprintf("%s%04d", runName, i) }
	if err := parallel(8, n, func(i int) error { return seed(ctx, w, nsOf(i), runName, 1) }); err != nil {
		return err
	}
	arms := []namespacesArm{{"floor (one Manager)", startFloor}, {"virtual clusters", startVirtual}}
	heap := map[string]float64{}
	goroutines := map[string]int{}
	for _, arm := range arms {
		if err := measureNamespacesArm(ctx, fleet, r, runName, n, arm, heap, goroutines, o); err != nil {
			return fmt.Errorf("%s: %w", arm.name, err)
		}
	}
	floor, virtual := arms[0].name, arms[1].name
	c := fmt.Sprintf("virtual ÷ floor N=%d", n)
	if heap[floor] > 0 {
		r.Add("namespaces", c, "heap per namespace", heap[virtual]/heap[floor], "×")
	}
	r.Add("namespaces", c, "heap per namespace beyond the floor's", (heap[virtual]-heap[floor])/kib, "KiB")
	r.Add("namespaces", c, "goroutines per namespace beyond the floor's", float64(goroutines[virtual]-goroutines[floor])/float64(n), "")

	// Both arms side by side for the updates.
	seen := make([]*rounds, len(arms))
	stops := make([]func() error, 0, len(arms))
	stopAll := func() error {
		errs := make([]error, 0, len(stops))
		for _, stop := range stops {
			errs = append(errs, stop())
		}
		return errors.Join(errs...)
	}
	for i, arm := range arms {
		seen[i] = newRounds()
		stop, err := arm.start(ctx, fleet, runName, seen[i])
		if err != nil {
			return errors.Join(fmt.Errorf("%s: %w", arm.name, err), stopAll())
		}
		stops = append(stops, stop)
	}
	for i, arm := range arms {
		if err := waitUntil(ctx, 5*time.Minute, fmt.Sprintf("%d objects reconciled (%s)", n, arm.name), func() bool { return seen[i].reached(0) == n }); err != nil {
			return errors.Join(err, stopAll())
		}
	}
	took := make([][]time.Duration, len(arms))
	for round := 1; round <= updateRounds; round++ {
		began := time.Now()
		if err := parallel(8, n, func(i int) error {
			patch := client.RawPatch("application/merge-patch+json", fmt.Appendf(nil,
				`{"metadata":{"annotations":{%q:%q}}}`, roundAnnotation, strconv.Itoa(round)))
			return w.Patch(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: nsOf(i), Name: objectName(0)}}, patch)
		}); err != nil {
			return errors.Join(err, stopAll())
		}
		done := make([]bool, len(arms))
		if err := waitUntil(ctx, 5*time.Minute, fmt.Sprintf("round %d reconciled", round), func() bool {
			all := true
			for i := range arms {
				if !done[i] && seen[i].reached(round) == n {
					done[i] = true
					took[i] = append(took[i], time.Since(began))
				}
				all = all && done[i]
			}
			return all
		}); err != nil {
			return errors.Join(err, stopAll())
		}
	}
	if err := stopAll(); err != nil {
		return err
	}
	medians := make([]time.Duration, len(arms))
	for i, arm := range arms {
		slices.Sort(took[i])
		medians[i] = took[i][len(took[i])/2]
		r.Add("namespaces", fmt.Sprintf("%s N=%d", arm.name, n),
			fmt.Sprintf("%d updates reconciled (median of %d rounds, both arms side by side)", n, updateRounds), ms(medians[i]), "ms")
	}
	if medians[0] > 0 {
		r.Add("namespaces", c, "time to reconcile the updates", float64(medians[1])/float64(medians[0]), "×")
	}
	return nil
}

// measureNamespacesArm runs one arm alone and reports its heap and RSS per namespace, the goroutines it added and
// the most goroutines that ran at once while it engaged; heap and goroutines also go into the maps, by arm.
func measureNamespacesArm(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, runName string, n int, arm namespacesArm,
	heap map[string]float64, goroutines map[string]int, o Options) error {
	before, goBefore := measure(ctx)
	seen := newRounds()
	peak := peakGoroutines()
	stop, err := arm.start(ctx, fleet, runName, seen)
	if err != nil {
		peak()
		return err
	}
	if err := waitUntil(ctx, 5*time.Minute, fmt.Sprintf("%d objects reconciled", n), func() bool { return seen.reached(0) == n }); err != nil {
		peak()
		return errors.Join(err, stop())
	}
	transient := peak() - goBefore
	after, goAfter := measure(ctx)
	heap[arm.name] = after.sub(before).div(n).Heap
	goroutines[arm.name] = goAfter - goBefore
	c := fmt.Sprintf("%s N=%d", arm.name, n)
	r.Add("namespaces", c, "heap per namespace (incl. its objects)", heap[arm.name]/kib, "KiB")
	r.Add("namespaces", c, "RSS per namespace (incl. its objects)", after.sub(before).div(n).RSS/kib, "KiB")
	r.Add("namespaces", c, "goroutines added", float64(goroutines[arm.name]), "")
	r.Add("namespaces", c, "goroutines at the peak of engaging, above the start", float64(transient), "")
	if !o.Quick {
		slug := "virtual"
		if strings.HasPrefix(arm.name, "floor") {
			slug = "floor"
		}
		if err := writeProfiles(o.Out, "namespaces-"+slug); err != nil {
			return errors.Join(err, stop())
		}
	}
	if err := stop(); err != nil {
		return err
	}
	_ = waitUntil(ctx, time.Minute, "the arm's goroutines gone", func() bool {
		_, g := heapAndGoroutines()
		return g <= goBefore+5
	})
	return nil
}
