// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
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

// counter counts reconciles, and holds when the arm began handing its clusters over and the CPU times then.
type counter struct {
	n     atomic.Int64
	began time.Time
	cpu   cpuTimes
	// marks[i] is the count that is the share progressMarks[i] of the reconciles the arm waits for; reached[i] is
	// when the count reached it, in nanoseconds after began (0 until then).
	marks   [len(progressMarks)]int64
	reached [len(progressMarks)]atomic.Int64
}

// newCounter returns a counter of an arm that waits for want reconciles.
func newCounter(want int64) *counter {
	c := &counter{}
	for i, share := range progressMarks {
		c.marks[i] = int64(math.Ceil(share * float64(want)))
	}
	return c
}

// progressMarks are the shares of an arm's reconciles whose times it reports, which show whether the time is spent
// evenly or waiting for the last clusters.
var progressMarks = [...]float64{0.1, 0.5, 0.9}

// count counts a reconcile, and the time when the count reaches a progress mark.
func (c *counter) count() {
	k := c.n.Add(1)
	for i, mark := range c.marks {
		if k == mark {
			c.reached[i].Store(int64(time.Since(c.began)))
		}
	}
}

// handOver records that the arm begins handing its clusters over now: the clock and the CPU accounting start.
func (c *counter) handOver() {
	c.cpu = readCPUTimes()
	memberRequests.take()
	c.began = time.Now()
}

func (c *counter) reconciler() reconcile.Func {
	return func(context.Context, reconcile.Request) (reconcile.Result, error) {
		c.count()
		return reconcile.Result{}, nil
	}
}

func (c *counter) mcReconciler() mcreconcile.Func {
	return func(context.Context, mcreconcile.Request) (reconcile.Result, error) {
		c.count()
		return reconcile.Result{}, nil
	}
}

// memoryFleet is where the clusters of the memory scenario are: the i-th cluster watches namespace ns(i) of
// member(i), which holds objects ConfigMaps.
type memoryFleet struct {
	hostCfg *rest.Config
	cfgs    []*rest.Config
	objects int
	// profiled is the first member's config without namespacePaths, for its CPU profiles.
	profiled *rest.Config
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
// function that stops what it started. It calls c.handOver when it begins handing the clusters over: after building
// what the arm builds before a cluster is known (the manager and its provider, the plain Managers), before the
// clusters are added (and built, for the arms that build them as they add them) or the managers started.
type engageFunc func(ctx context.Context, f *memoryFleet, n int, c *counter) (stop func() error, err error)

// engageEach returns the engage function of an arm that runs a manager with the clusters provider and hands it the
// i-th cluster with add, for every i, from 100 goroutines.
func engageEach(add func(ctx context.Context, p *clusters.Provider, f *memoryFleet, i int) error) engageFunc {
	return func(ctx context.Context, f *memoryFleet, n int, c *counter) (func() error, error) {
		provider := clusters.New()
		stop, err := runCounting(ctx, f.hostCfg, provider, c, nil)
		if err != nil {
			return nil, err
		}
		c.handOver()
		if err := parallel(min(n, 100), n, func(i int) error { return add(ctx, provider, f, i) }); err != nil {
			return nil, errors.Join(err, stop())
		}
		return stop, nil
	}
}

// engageOutOfTree engages n clusters through the out-of-tree provider (examples/argocd), the i-th reaching
// member(i), each seeing the namespace memoryShared of its member.
func engageOutOfTree(ctx context.Context, f *memoryFleet, n int, c *counter) (func() error, error) {
	o, err := newOutOfTree(ctx, f.hostCfg, fmt.Sprintf("mem-%d-%d", n, time.Now().UnixNano()), memoryShared, n, f.ns, f.member)
	if err != nil {
		return nil, err
	}
	// The clusters are handed over as their Secrets, which exist when the manager starts: its start is in the time.
	c.handOver()
	return runCounting(ctx, f.hostCfg, o.provider, c, o.provider.SetupWithManager, o.cacheOptions)
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
func engagePlain(ctx context.Context, f *memoryFleet, n int, c *counter) (func() error, error) {
	prefix := fmt.Sprintf("plain-%d", time.Now().UnixNano())
	mgrs := make([]manager.Manager, n)
	for i := range mgrs {
		var err error
		if mgrs[i], err = plainManager(f.member(i), f.ns(i), fmt.Sprintf("%s-%d", prefix, i), c.reconciler()); err != nil {
			return nil, err
		}
	}
	c.handOver()
	return runAll(ctx, mgrs), nil
}

// stripManagedFields drops managedFields from every object a cluster's cache holds.
func stripManagedFields(o *cluster.Options) {
	o.Cache.DefaultTransform = cache.TransformStripManagedFields()
}

// armPlainManagers is the arm of the memory scenario that the others are compared with.
const armPlainManagers = "plain Managers"

var memoryArms = []memoryArm{
	{name: "separate", engage: engageSeparate()},
	{name: "separate, own RESTMapper", engage: engageSeparate(ownRESTMapper)},
	{name: "AddConfig", engage: engageAddConfig},
	{name: armOutOfTree, engage: engageOutOfTree},
	{name: armPlainManagers, engage: engagePlain},
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
// each cluster costs its member what a member of its own would cost. Each arm also reports the time from handing its
// clusters over until every object was reconciled, the CPU time the controller (this process) and the control
// planes (its child processes) used meanwhile, and the requests each cluster sent to its member. At the largest
// size the arms run rounds times, interleaved, each round in another order; every figure is the median over the
// rounds, and an arm's time is also divided by the plain Managers' of the same round. Before each arm the control
// planes are let quiet down (quietControlPlanes), so that an arm's time and CPU leave out what the arm before it
// left the members to do.
func MemorySeparate(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, sizes []int, objects, rounds int, o Options) error {
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
		if f.profiled == nil {
			f.profiled = cfg
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
		var arms []memoryArm
		for _, arm := range memoryArms {
			if (!arm.options || si == 0) && o.runsArm(arm.name) {
				arms = append(arms, arm)
			}
		}
		// The arms of the largest size run in interleaved rounds, each round in a different order, and the median
		// counts: the time of one arm varies by a third from one run to the next on a shared machine.
		sizeRounds := 1
		if n == largest {
			sizeRounds = max(1, rounds)
		}
		figures := map[string][]armFigures{}
		for round := range sizeRounds {
			for k := range arms {
				arm := arms[(k+round)%len(arms)]
				fig, err := measureArm(ctx, f, n, arm, o, round, sizeRounds)
				if err != nil {
					return fmt.Errorf("%s, N=%d: %w", arm.name, n, err)
				}
				fig.position = k + 1
				figures[arm.name] = append(figures[arm.name], fig)
			}
		}
		for _, arm := range arms {
			var plain []armFigures
			if arm.name != armPlainManagers {
				plain = figures[armPlainManagers]
			}
			reportArm(r, fmt.Sprintf("%s N=%d", arm.name, n), figures[arm.name], plain)
		}
	}
	return nil
}

// armFigures are what one engagement of n clusters the way of an arm measured.
type armFigures struct {
	// perCluster is the growth of the process's memory, divided by the number of clusters; goroutines likewise.
	perCluster memSnapshot
	goroutines float64
	// reconciled is the time from handing the clusters over until every object had been reconciled.
	reconciled time.Duration
	// cpu is the CPU time the controller and the control planes used meanwhile.
	cpu cpuTimes
	// requests counts the requests to the members by kind, per cluster.
	requests map[string]float64
	// clusters is the number of clusters the arm engaged.
	clusters int
	// quietWait is how long the arm waited for the control planes to be quiet before it began (quietControlPlanes),
	// and quietShare the share of a core they used in the last window of that wait.
	quietWait  time.Duration
	quietShare float64
	// position is the arm's place in the order of its round, from 1.
	position int
	// progress is when the share progressMarks[i] of the objects had been reconciled, after the hand-over.
	progress [len(progressMarks)]time.Duration
	// beforeHandOver is how long the arm took to build what it builds before the clock starts (handOver).
	beforeHandOver time.Duration
}

// measureArm engages n clusters the arm's way, waits until every object has been reconciled and the process has
// settled, and returns what that cost. round and rounds name the profiles of repeated measurements apart.
func measureArm(ctx context.Context, f *memoryFleet, n int, arm memoryArm, o Options, round, rounds int) (armFigures, error) {
	before, goBefore := measure(ctx)
	quietWait, quietShare := quietControlPlanes(ctx)
	slug := strings.NewReplacer(",", "", " ", "-", "(", "", ")", "").Replace(strings.ToLower(fmt.Sprintf("%s N=%d", arm.name, n)))
	if rounds > 1 {
		slug += fmt.Sprintf("-round-%d", round+1)
	}
	stopProfile, err := startArmCPUProfile(o, slug)
	if err != nil {
		return armFigures{}, err
	}
	waitMemberProfile := startMemberCPUProfile(ctx, o, f.profiled, slug)
	want := int64(n * f.objects)
	c := newCounter(want)
	engaging := time.Now()
	stop, err := arm.engage(ctx, f, n, c)
	if err != nil {
		return armFigures{}, errors.Join(err, stopProfile(), waitMemberProfile())
	}
	err = waitUntil(ctx, 10*time.Minute, fmt.Sprintf("%d first reconciles", want), func() bool { return c.n.Load() >= want })
	fig := armFigures{reconciled: time.Since(c.began), cpu: readCPUTimes().sub(c.cpu), requests: map[string]float64{}, clusters: n,
		quietWait: quietWait, quietShare: quietShare, beforeHandOver: c.began.Sub(engaging)}
	for i := range progressMarks {
		fig.progress[i] = time.Duration(c.reached[i].Load())
	}
	for kind, k := range memberRequests.take() {
		fig.requests[kind] = float64(k) / float64(n)
	}
	err = errors.Join(err, stopProfile(), waitMemberProfile())
	if err != nil {
		return armFigures{}, errors.Join(err, stop())
	}
	after, goAfter := measure(ctx)
	fig.perCluster = after.sub(before).div(n)
	fig.goroutines = float64(goAfter-goBefore) / float64(n)
	if !o.Quick {
		if err := writeProfiles(o.Out, slug); err != nil {
			return armFigures{}, errors.Join(err, stop())
		}
	}
	if err := stop(); err != nil {
		return armFigures{}, err
	}
	// Let what the arm started wind down before the next arm measures its baseline.
	_ = waitUntil(ctx, time.Minute, "the arm's goroutines gone", func() bool {
		_, g := heapAndGoroutines()
		return g <= goBefore+5
	})
	return fig, nil
}

// reportArm reports the median over the rounds of each figure of an arm (the rounds' figures), with the fastest and
// slowest round's time when there are several, and the median over the rounds of the arm's time divided by the
// plain Managers' time of the same round (plain, if they ran as often).
func reportArm(r *Report, cs string, rounds, plain []armFigures) {
	values := func(f func(armFigures) float64) []float64 {
		vs := make([]float64, len(rounds))
		for i, fig := range rounds {
			vs[i] = f(fig)
		}
		return vs
	}
	med := func(f func(armFigures) float64) float64 { return median(values(f)) }
	reconciled := func(f armFigures) float64 { return ms(f.reconciled) }
	r.Add("memory", cs, "heap per cluster (incl. its objects)", med(func(f armFigures) float64 { return f.perCluster.Heap })/kib, "KiB")
	r.Add("memory", cs, "heap per cluster incl. goroutine descriptors", med(func(f armFigures) float64 {
		return withDescriptors(r, f.perCluster.Heap, f.goroutines)
	})/kib, "KiB")
	r.Add("memory", cs, "heap in use per cluster (HeapInuse)", med(func(f armFigures) float64 { return f.perCluster.HeapInuse })/kib, "KiB")
	r.Add("memory", cs, "RSS per cluster (incl. its objects)", med(func(f armFigures) float64 { return f.perCluster.RSS })/kib, "KiB")
	r.Add("memory", cs, "goroutines per cluster", med(func(f armFigures) float64 { return f.goroutines }), "")
	r.Add("memory", cs, "handed over → every object reconciled", med(reconciled), "ms")
	for i, share := range progressMarks {
		r.Add("memory", cs, fmt.Sprintf("handed over → %.0f%% of the objects reconciled", share*100), med(func(f armFigures) float64 { return ms(f.progress[i]) }), "ms")
	}
	r.Add("memory", cs, "building before handing over (not in the time)", med(func(f armFigures) float64 { return ms(f.beforeHandOver) }), "ms")
	if len(rounds) > 1 {
		times := values(reconciled)
		r.Add("memory", cs, fmt.Sprintf("every object reconciled, fastest of %d rounds", len(rounds)), slices.Min(times), "ms")
		r.Add("memory", cs, fmt.Sprintf("every object reconciled, slowest of %d rounds", len(rounds)), slices.Max(times), "ms")
	}
	if len(plain) == len(rounds) {
		ratios := make([]float64, len(rounds))
		for i := range rounds {
			ratios[i] = float64(rounds[i].reconciled) / float64(plain[i].reconciled)
		}
		r.Add("memory", cs, "every object reconciled ÷ plain Managers' (same round)", median(ratios), "×")
	}
	// Each round's time (and ratio) with the arm's place in the round, which shows what the median leaves out: how
	// far one round is from another, and whether following another arm costs an arm time.
	if len(rounds) > 1 {
		for i, fig := range rounds {
			r.Add("memory", cs, fmt.Sprintf("round %d, arm %d of the round: every object reconciled", i+1, fig.position), ms(fig.reconciled), "ms")
			if len(plain) == len(rounds) {
				r.Add("memory", cs, fmt.Sprintf("round %d: every object reconciled ÷ plain Managers'", i+1),
					float64(fig.reconciled)/float64(plain[i].reconciled), "×")
			}
		}
	}
	r.Add("memory", cs, "wait for quiet control planes before handing over", med(func(f armFigures) float64 { return ms(f.quietWait) }), "ms")
	r.Add("memory", cs, "control planes' share of a core when handing over", med(func(f armFigures) float64 { return f.quietShare }), "")
	r.Add("memory", cs, "controller CPU until every object reconciled", med(func(f armFigures) float64 { return ms(f.cpu.self) }), "ms")
	if rounds[0].cpu.known {
		r.Add("memory", cs, "control planes' CPU until every object reconciled", med(func(f armFigures) float64 { return ms(f.cpu.children) }), "ms")
		r.Add("memory", cs, "kube-apiservers' CPU until every object reconciled", med(func(f armFigures) float64 { return ms(f.cpu.apiservers) }), "ms")
		r.Add("memory", cs, "kube-apiservers' CPU per member request", med(func(f armFigures) float64 {
			requests := 0.0
			for _, perCluster := range f.requests {
				requests += perCluster * float64(f.clusters)
			}
			if requests == 0 {
				return 0
			}
			return ms(f.cpu.apiservers) / requests
		}), "ms")
	}
	kinds := map[string]bool{}
	for _, fig := range rounds {
		for kind := range fig.requests {
			kinds[kind] = true
		}
	}
	for _, kind := range slices.Sorted(maps.Keys(kinds)) {
		r.Add("memory", cs, "member requests per cluster: "+kind, med(func(f armFigures) float64 { return f.requests[kind] }), "")
	}
}

// median returns the median of vs (the mean of the middle two for an even number), 0 for none.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
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
