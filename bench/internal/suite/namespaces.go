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
// watching all of them, each namespace holding one ConfigMap: heap per namespace once every object has been
// reconciled and the process has settled, goroutines added, and the time to reconcile an update of every object
// (a write to each of the n objects, from 8 writers at once, until every reconcile has read its write), over
// several rounds.
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
	updates := map[string]time.Duration{}
	round := 0
	for _, arm := range arms {
		before, goBefore := measure(ctx)
		seen := newRounds()
		peak := peakGoroutines()
		stop, err := arm.start(ctx, fleet, runName, seen)
		if err != nil {
			peak()
			return fmt.Errorf("%s: %w", arm.name, err)
		}
		if err := waitUntil(ctx, 5*time.Minute, fmt.Sprintf("%d objects reconciled (%s)", n, arm.name), func() bool { return seen.reached(0) == n }); err != nil {
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
			slug := map[bool]string{true: "floor", false: "virtual"}[arm.name == arms[0].name]
			if err := writeProfiles(o.Out, "namespaces-"+slug); err != nil {
				return errors.Join(err, stop())
			}
		}

		var took []time.Duration
		for range updateRounds {
			round++
			began := time.Now()
			if err := parallel(8, n, func(i int) error {
				patch := client.RawPatch("application/merge-patch+json", fmt.Appendf(nil,
					`{"metadata":{"annotations":{%q:%q}}}`, roundAnnotation, strconv.Itoa(round)))
				return w.Patch(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: nsOf(i), Name: objectName(0)}}, patch)
			}); err != nil {
				return errors.Join(err, stop())
			}
			if err := waitUntil(ctx, 5*time.Minute, fmt.Sprintf("round %d reconciled (%s)", round, arm.name), func() bool { return seen.reached(round) == n }); err != nil {
				return errors.Join(err, stop())
			}
			took = append(took, time.Since(began))
		}
		slices.Sort(took)
		updates[arm.name] = took[len(took)/2]
		r.Add("namespaces", c, fmt.Sprintf("%d updates reconciled (median of %d rounds)", n, updateRounds), ms(updates[arm.name]), "ms")
		if err := stop(); err != nil {
			return err
		}
		_ = waitUntil(ctx, time.Minute, "the arm's goroutines gone", func() bool {
			_, g := heapAndGoroutines()
			return g <= goBefore+5
		})
	}
	floor, virtual := arms[0].name, arms[1].name
	c := fmt.Sprintf("virtual ÷ floor N=%d", n)
	if heap[floor] > 0 {
		r.Add("namespaces", c, "heap per namespace", heap[virtual]/heap[floor], "×")
	}
	r.Add("namespaces", c, "heap per namespace beyond the floor's", (heap[virtual]-heap[floor])/kib, "KiB")
	r.Add("namespaces", c, "goroutines per namespace beyond the floor's", float64(goroutines[virtual]-goroutines[floor])/float64(n), "")
	if updates[floor] > 0 {
		r.Add("namespaces", c, "time to reconcile the updates", float64(updates[virtual])/float64(updates[floor]), "×")
	}
	return nil
}
