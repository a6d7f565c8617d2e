// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
)

// counter counts reconciles.
type counter struct{ n atomic.Int64 }

func (c *counter) reconciler() reconcile.Func {
	return func(context.Context, reconcile.Request) (reconcile.Result, error) {
		c.n.Add(1)
		return reconcile.Result{}, nil
	}
}

func (c *counter) mcReconciler() mcreconcile.Func {
	return func(context.Context, mcreconcile.Request) (reconcile.Result, error) {
		c.n.Add(1)
		return reconcile.Result{}, nil
	}
}

// memoryFleet is where the clusters of the memory scenario are: the i-th cluster watches namespace ns(i) of
// member(i), which holds objects ConfigMaps.
type memoryFleet struct {
	hostCfg *rest.Config
	cfgs    []*rest.Config
	objects int
}

func (f *memoryFleet) ns(i int) string           { return fmt.Sprintf("mem-%04d", i) }
func (f *memoryFleet) member(i int) *rest.Config { return f.cfgs[i%len(f.cfgs)] }

// memoryArm is one way of engaging n clusters with a controller of ConfigMaps that counts its reconciles.
type memoryArm struct {
	name string
	// options is set for the arms that show a memory option, which run at the smallest size only.
	options bool
	engage  engageFunc
}

// engageSeparate returns the engage function of an arm of separate clusters, built with opts as the library's
// providers built them before clusters.NewCluster (see separateCluster) and added with the clusters provider's Add.
func engageSeparate(opts ...cluster.Option) engageFunc {
	return engageSeparateWith(nil, opts...)
}

// engageSeparateWith is engageSeparate with restOption, if not nil, applied to a copy of each cluster's rest.Config.
func engageSeparateWith(restOption func(*rest.Config), opts ...cluster.Option) engageFunc {
	return engageEach(func(ctx context.Context, p *clusters.Provider, f *memoryFleet, i int) error {
		cfg := f.member(i)
		if restOption != nil {
			cfg = rest.CopyConfig(cfg)
			restOption(cfg)
		}
		cl, err := separateCluster(cfg, f.ns(i), opts...)
		if err != nil {
			return err
		}
		return p.Add(ctx, multicluster.ClusterName(f.ns(i)), cl)
	})
}

// engageAddConfig engages each cluster through the clusters provider's AddConfig, the README's path: the provider
// builds it from its rest.Config with clusters.NewCluster, with the library's defaults.
var engageAddConfig = engageEach(func(ctx context.Context, p *clusters.Provider, f *memoryFleet, i int) error {
	return p.AddConfig(ctx, multicluster.ClusterName(f.ns(i)), f.member(i), inNamespaceOption(f.ns(i)))
})

// engagePlainClusters engages each cluster built with controller-runtime's cluster.New and nothing else, added
// with the clusters provider's Add: what the README's sample did before AddConfig, without the library's defaults.
var engagePlainClusters = engageEach(func(ctx context.Context, p *clusters.Provider, f *memoryFleet, i int) error {
	cl, err := cluster.New(f.member(i), inNamespaceOption(f.ns(i)))
	if err != nil {
		return err
	}
	return p.Add(ctx, multicluster.ClusterName(f.ns(i)), cl)
})

// engageFunc engages n clusters of the fleet with a controller that counts its reconciles in c, and returns the
// function that stops what it started and when it began handing the clusters over: after building what the arm
// builds before a cluster is known (the manager and its provider, the plain Managers), before the clusters are
// added (and built, for the arms that build them as they add them) or the managers started.
type engageFunc func(ctx context.Context, f *memoryFleet, n int, c *counter) (stop func() error, began time.Time, err error)

// engageEach returns the engage function of an arm that runs a manager with the clusters provider and hands it the
// i-th cluster with add, for every i, from 100 goroutines.
func engageEach(add func(ctx context.Context, p *clusters.Provider, f *memoryFleet, i int) error) engageFunc {
	return func(ctx context.Context, f *memoryFleet, n int, c *counter) (func() error, time.Time, error) {
		provider := clusters.New()
		stop, err := runCounting(ctx, f.hostCfg, provider, c, nil)
		if err != nil {
			return nil, time.Time{}, err
		}
		began := time.Now()
		if err := parallel(min(n, 100), n, func(i int) error { return add(ctx, provider, f, i) }); err != nil {
			return nil, time.Time{}, errors.Join(err, stop())
		}
		return stop, began, nil
	}
}

// engageOutOfTree engages n clusters through the out-of-tree provider (examples/argocd), the i-th reaching
// member(i), each seeing the namespace memoryShared of its member.
func engageOutOfTree(ctx context.Context, f *memoryFleet, n int, c *counter) (func() error, time.Time, error) {
	o, err := newOutOfTree(ctx, f.hostCfg, fmt.Sprintf("mem-%d-%d", n, time.Now().UnixNano()), memoryShared, n, f.ns, f.member)
	if err != nil {
		return nil, time.Time{}, err
	}
	// The clusters are handed over as their Secrets, which exist when the manager starts: its start is in the time.
	began := time.Now()
	stop, err := runCounting(ctx, f.hostCfg, o.provider, c, o.provider.SetupWithManager, o.cacheOptions)
	return stop, began, err
}

// memoryShared is the namespace of every member that the clusters of the out-of-tree arm see, with as many
// ConfigMaps as the namespace of each cluster of the other arms.
const memoryShared = "mem-shared"

// runCounting starts a manager of the host with provider (and opts) and a multi-cluster ConfigMap controller of
// steadyWorkers workers that counts its reconciles in c, after setup (if not nil) has set up the provider with the
// manager; it waits until the manager is elected, and returns the function that stops it.
func runCounting(ctx context.Context, hostCfg *rest.Config, provider multicluster.Provider, c *counter,
	setup func(mcmanager.Manager) error, opts ...func(*mcmanager.Options)) (func() error, error) {
	mgr, err := newManager(hostCfg, provider, opts...)
	if err != nil {
		return nil, err
	}
	if setup != nil {
		if err := setup(mgr); err != nil {
			return nil, err
		}
	}
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named(fmt.Sprintf("memory-%d", time.Now().UnixNano())).
		For(&corev1.ConfigMap{}).
		WithOptions(mccontroller.Options{MaxConcurrentReconciles: steadyWorkers}).
		Complete(c.mcReconciler()); err != nil {
		return nil, err
	}
	stop := run(ctx, mgr)
	<-mgr.Elected()
	return stop, nil
}

// engagePlain engages n plain controller-runtime managers, one per cluster, started together.
func engagePlain(ctx context.Context, f *memoryFleet, n int, c *counter) (func() error, time.Time, error) {
	prefix := fmt.Sprintf("plain-%d", time.Now().UnixNano())
	mgrs := make([]manager.Manager, n)
	for i := range mgrs {
		var err error
		if mgrs[i], err = plainManager(f.member(i), f.ns(i), fmt.Sprintf("%s-%d", prefix, i), c.reconciler()); err != nil {
			return nil, time.Time{}, err
		}
	}
	began := time.Now()
	return runAll(ctx, mgrs), began, nil
}

// stripManagedFields drops managedFields from every object a cluster's cache holds.
func stripManagedFields(o *cluster.Options) {
	o.Cache.DefaultTransform = cache.TransformStripManagedFields()
}

var memoryArms = []memoryArm{
	{name: "separate", engage: engageSeparate()},
	{name: "separate, own RESTMapper", engage: engageSeparate(ownRESTMapper)},
	{name: "AddConfig", engage: engageAddConfig},
	{name: armOutOfTree, engage: engageOutOfTree},
	{name: "plain Managers", engage: engagePlain},
	{name: "separate, managedFields stripped", options: true, engage: engageSeparate(stripManagedFields)},
	{name: "Add (plain cluster.New)", options: true, engage: engagePlainClusters},
	{name: "separate, responses uncompressed", options: true, engage: engageSeparateWith(func(cfg *rest.Config) { cfg.DisableCompression = true })},
}

// MemorySeparate measures what a separately connected cluster costs: for each size n and arm, n clusters each
// watching a namespace of objects ConfigMaps (spread over the members) are engaged, and once every object has been
// reconciled and the process has settled, the growth of the heap, RSS and goroutines is divided by n. The arms are
// the library's separate clusters (discovery shared), the same with a RESTMapper each (controller-runtime's
// default), one plain controller-runtime Manager per cluster, and, at the smallest size only, two memory options:
// managedFields stripped from the caches, and responses (watches included) asked for uncompressed. Every cluster's
// requests go to its namespace's path (namespacePaths) and its informers list, then watch (listThenWatch), so that
// each cluster costs its member what a member of its own would cost.
func MemorySeparate(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, sizes []int, objects int, o Options) error {
	defer listThenWatch()()
	f := &memoryFleet{hostCfg: fleet.Host(), objects: objects}
	var writers []client.Client
	for _, m := range fleet.Members() {
		cfg, err := fleet.Config(m)
		if err != nil {
			return err
		}
		w, err := writer(cfg)
		if err != nil {
			return err
		}
		f.cfgs = append(f.cfgs, withNamespacePaths(cfg))
		writers = append(writers, w)
	}
	largest := 0
	for _, n := range sizes {
		largest = max(largest, n)
	}
	if err := parallel(4, largest, func(i int) error {
		return seed(ctx, writers[i%len(writers)], f.ns(i), "mem-", objects)
	}); err != nil {
		return err
	}
	for _, w := range writers {
		if err := seed(ctx, w, memoryShared, "mem-", objects); err != nil {
			return err
		}
	}

	for si, n := range sizes {
		for _, arm := range memoryArms {
			if arm.options && si > 0 || !o.runsArm(arm.name) {
				continue
			}
			if err := measureArm(ctx, r, f, n, arm, o); err != nil {
				return fmt.Errorf("%s, N=%d: %w", arm.name, n, err)
			}
		}
	}
	return nil
}

// measureArm engages n clusters the arm's way and reports heap, RSS and goroutines per cluster.
func measureArm(ctx context.Context, r *Report, f *memoryFleet, n int, arm memoryArm, o Options) error {
	before, goBefore := measure(ctx)
	cs := fmt.Sprintf("%s N=%d", arm.name, n)
	slug := strings.NewReplacer(",", "", " ", "-", "(", "", ")", "").Replace(strings.ToLower(cs))
	stopProfile, err := startArmCPUProfile(o, slug)
	if err != nil {
		return err
	}
	c := &counter{}
	stop, began, err := arm.engage(ctx, f, n, c)
	if err != nil {
		return errors.Join(err, stopProfile())
	}
	want := int64(n * f.objects)
	err = waitUntil(ctx, 10*time.Minute, fmt.Sprintf("%d first reconciles", want), func() bool { return c.n.Load() >= want })
	reconciled := time.Since(began)
	err = errors.Join(err, stopProfile())
	if err != nil {
		return errors.Join(err, stop())
	}
	after, goAfter := measure(ctx)
	per := after.sub(before).div(n)
	goroutines := float64(goAfter-goBefore) / float64(n)
	r.Add("memory", cs, "heap per cluster (incl. its objects)", per.Heap/kib, "KiB")
	r.Add("memory", cs, "heap per cluster incl. goroutine descriptors", withDescriptors(r, per.Heap, goroutines)/kib, "KiB")
	r.Add("memory", cs, "heap in use per cluster (HeapInuse)", per.HeapInuse/kib, "KiB")
	r.Add("memory", cs, "RSS per cluster (incl. its objects)", per.RSS/kib, "KiB")
	r.Add("memory", cs, "goroutines per cluster", goroutines, "")
	r.Add("memory", cs, "handed over → every object reconciled", ms(reconciled), "ms")
	if !o.Quick {
		if err := writeProfiles(o.Out, slug); err != nil {
			return errors.Join(err, stop())
		}
	}
	if err := stop(); err != nil {
		return err
	}
	// Let what the arm started wind down before the next arm measures its baseline.
	_ = waitUntil(ctx, time.Minute, "the arm's goroutines gone", func() bool {
		_, g := heapAndGoroutines()
		return g <= goBefore+5
	})
	return nil
}

// startArmCPUProfile starts the CPU profile of an arm (Options.ArmCPUProfiles) and returns the function that ends
// it; without that option, it does nothing.
func startArmCPUProfile(o Options, slug string) (stop func() error, err error) {
	if !o.ArmCPUProfiles || o.Out == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(filepath.Join(o.Out, "cpu-"+slug+".pprof"))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return nil, errors.Join(err, f.Close())
	}
	// The goroutines a few seconds in: what the arm waits for while it hands over its clusters.
	dump := time.AfterFunc(3*time.Second, func() {
		if g, err := os.Create(filepath.Join(o.Out, "goroutines-during-"+slug+".txt")); err == nil {
			_ = pprof.Lookup("goroutine").WriteTo(g, 1)
			_ = g.Close()
		}
	})
	return func() error {
		dump.Stop()
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
