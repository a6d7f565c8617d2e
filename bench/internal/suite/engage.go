// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
)

// firstReconciles registers a ConfigMap controller that marks the first reconcile of each cluster whose name has
// the prefix.
func firstReconciles(mgr mcmanager.Manager, name, prefix string, seen *firsts) error {
	return mcbuilder.ControllerManagedBy(mgr).
		Named(name).
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			if name := req.ClusterName.String(); strings.HasPrefix(name, prefix) {
				seen.mark(name)
			}
			return reconcile.Result{}, nil
		}))
}

// EngageVirtual measures, for n namespaces each with one ConfigMap, the time from the manager's start to the first
// reconcile in each virtual cluster (namespace provider).
func EngageVirtual(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, n int, f Floors) error {
	c, err := writer(fleet.Host())
	if err != nil {
		return err
	}
	prefix := fmt.Sprintf("ev%d-", n)
	if err := parallel(8, n, func(i int) error { return seed(ctx, c, fmt.Sprintf("%s%04d", prefix, i), prefix, 1) }); err != nil {
		return err
	}
	shared, err := virtualClusters(fleet.Host(), prefix)
	if err != nil {
		return err
	}
	mgr, err := newManager(fleet.Host(), namespace.New(shared))
	if err != nil {
		return err
	}
	if err := mgr.GetLocalManager().Add(shared); err != nil {
		return err
	}
	seen := newFirsts()
	if err := firstReconciles(mgr, fmt.Sprintf("engage-virtual-%d", n), prefix, seen); err != nil {
		return err
	}
	t0 := time.Now()
	stop := run(ctx, mgr)
	err = waitUntil(ctx, 10*time.Minute, fmt.Sprintf("%d virtual clusters reconciled", n), func() bool { return seen.count() == n })
	lat := seen.since(t0)
	if stopErr := stop(); err == nil {
		err = stopErr
	}
	if err != nil {
		return err
	}
	report(r, "engage", fmt.Sprintf("virtual N=%d", n), lat, f)
	return nil
}

// Arms of the engage scenario for separate clusters.
const (
	// armSeparate is the library's separate clusters, built as its providers build them: discovery shared by the
	// clusters that serve the same APIs.
	armSeparate = "separate"
	// armOwnMapper is the same with a RESTMapper per cluster, controller-runtime's default (the library's before
	// it shared discovery).
	armOwnMapper = "separate, own RESTMapper"
	// armAddConfig is clusters added through the clusters provider's AddConfig, the README's path: the provider
	// builds each cluster with clusters.NewCluster, and the clock includes the building.
	armAddConfig = "AddConfig"
	// armPlain is one plain controller-runtime Manager per cluster, all started together.
	armPlain = "plain Managers"
	// armOutOfTree (see outoftree.go) is clusters of Argo CD cluster Secrets engaged by examples/argocd, a provider
	// written as outside this repository: the Secrets exist when the manager starts, and the clock starts with it.
)

// engageArms are the arms of the engage scenario for separate clusters, in the order they run.
var engageArms = []string{armSeparate, armOwnMapper, armAddConfig, armOutOfTree, armPlain}

// armTag tells the namespaces and cluster names of the engage arms apart.
var armTag = map[string]string{armSeparate: "s", armOwnMapper: "o", armAddConfig: "a", armOutOfTree: "x", armPlain: "p"}

// EngageSeparate measures, for n clusters each with its own connection and cache (spread over the fleet's members,
// each seeing a namespace with one ConfigMap), the time from handing them all over to the first reconcile in each,
// and returns those latencies. The library's arms add n cluster.Clusters to the clusters provider from 100
// goroutines at once; the plain arm starts n controller-runtime Managers at once, each in a goroutine of its own.
// Clusters and managers are built before the clock starts. round tells repeated measurements apart.
func EngageSeparate(ctx context.Context, fleet *mcenvtest.Fleet, n, round int, arm string) ([]time.Duration, error) {
	members := fleet.Members()
	prefix := fmt.Sprintf("es%d-%d%s-", n, round, armTag[arm])
	ns := prefix + "objects"
	cfgs := make([]*rest.Config, len(members))
	for i, m := range members {
		cfg, err := fleet.Config(m)
		if err != nil {
			return nil, err
		}
		cfgs[i] = cfg
		c, err := writer(cfg)
		if err != nil {
			return nil, err
		}
		if err := seed(ctx, c, ns, prefix, 1); err != nil {
			return nil, err
		}
	}
	nameOf := func(i int) string { return fmt.Sprintf("%s%04d", prefix, i) }
	seen := newFirsts()
	// What the previous arm left to wind down (a thousand managers' goroutines, their garbage) must not slow this
	// one.
	settled(ctx)
	start := engageLibrary
	switch arm {
	case armPlain:
		start = engagePlainManagers
	case armOutOfTree:
		start = engageOutOfTreeProvider
	}
	t0, stop, err := start(ctx, fleet, arm, n, cfgs, ns, prefix, nameOf, seen)
	if err != nil {
		return nil, err
	}
	err = waitUntil(ctx, 10*time.Minute, fmt.Sprintf("%d clusters reconciled (%s)", n, arm), func() bool { return seen.count() == n })
	lat := seen.since(t0)
	if stopErr := stop(); err == nil {
		err = stopErr
	}
	if err != nil {
		return nil, err
	}
	return lat, nil
}

// engagePlainManagers builds n plain controller-runtime Managers, the i-th for the namespace ns of member cfgs[i
// mod len], each marking its first reconcile under nameOf(i), and starts them all at once; it returns when it
// started them, and the function that stops them.
func engagePlainManagers(ctx context.Context, _ *mcenvtest.Fleet, _ string, n int, cfgs []*rest.Config, ns, _ string,
	nameOf func(int) string, seen *firsts) (time.Time, func() error, error) {
	mgrs := make([]manager.Manager, n)
	for i := range mgrs {
		name := nameOf(i)
		first := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
			seen.mark(name)
			return reconcile.Result{}, nil
		})
		var err error
		if mgrs[i], err = plainManager(cfgs[i%len(cfgs)], ns, name, first); err != nil {
			return time.Time{}, nil, err
		}
	}
	t0 := time.Now()
	return t0, runAll(ctx, mgrs), nil
}

// engageOutOfTreeProvider writes n cluster Secrets, the i-th for the namespace ns of member cfgs[i mod len], and
// starts a multi-cluster manager with the out-of-tree provider of those Secrets; it returns when it started the
// manager, and the function that stops it.
func engageOutOfTreeProvider(ctx context.Context, fleet *mcenvtest.Fleet, _ string, n int, cfgs []*rest.Config, ns, prefix string,
	nameOf func(int) string, seen *firsts) (time.Time, func() error, error) {
	name := strings.TrimSuffix(prefix, "-")
	o, err := newOutOfTree(ctx, fleet.Host(), name, ns, n, nameOf, func(i int) *rest.Config { return cfgs[i%len(cfgs)] })
	if err != nil {
		return time.Time{}, nil, err
	}
	mgr, err := newManager(fleet.Host(), o.provider, o.cacheOptions)
	if err != nil {
		return time.Time{}, nil, err
	}
	if err := o.provider.SetupWithManager(mgr); err != nil {
		return time.Time{}, nil, err
	}
	if err := firstReconciles(mgr, "engage-"+name, prefix, seen); err != nil {
		return time.Time{}, nil, err
	}
	return time.Now(), run(ctx, mgr), nil
}

// engageLibrary runs a multi-cluster manager with the clusters provider, builds n separate clusters the arm's way
// (the i-th for the namespace ns of member cfgs[i mod len]) and adds them all to the provider from 100 goroutines;
// it returns when it began adding them, and the function that stops the manager. The AddConfig arm hands the
// provider the rest.Configs instead, and the provider builds the clusters while the clock runs.
func engageLibrary(ctx context.Context, fleet *mcenvtest.Fleet, arm string, n int, cfgs []*rest.Config, ns, prefix string,
	nameOf func(int) string, seen *firsts) (time.Time, func() error, error) {
	var opts []cluster.Option
	if arm == armOwnMapper {
		opts = append(opts, ownRESTMapper)
	}
	provider := clusters.New()
	mgr, err := newManager(fleet.Host(), provider)
	if err != nil {
		return time.Time{}, nil, err
	}
	if err := firstReconciles(mgr, "engage-"+strings.TrimSuffix(prefix, "-"), prefix, seen); err != nil {
		return time.Time{}, nil, err
	}
	stop := run(ctx, mgr)
	if arm == armAddConfig {
		t0 := time.Now()
		if err := parallel(min(n, 100), n, func(i int) error {
			return provider.AddConfig(ctx, multicluster.ClusterName(nameOf(i)), cfgs[i%len(cfgs)], inNamespaceOption(ns))
		}); err != nil {
			return time.Time{}, nil, errors.Join(err, stop())
		}
		return t0, stop, nil
	}
	built := make([]cluster.Cluster, n)
	for i := range n {
		if built[i], err = separateCluster(cfgs[i%len(cfgs)], ns, opts...); err != nil {
			return time.Time{}, nil, errors.Join(err, stop())
		}
	}
	t0 := time.Now()
	if err := parallel(min(n, 100), n, func(i int) error {
		return provider.Add(ctx, multicluster.ClusterName(nameOf(i)), built[i])
	}); err != nil {
		return time.Time{}, nil, errors.Join(err, stop())
	}
	return t0, stop, nil
}

// reportRounds reports the round of lat (one latency list per round) whose "all" is the median, as report does, and,
// with more than one round, the fastest and the slowest round's "all".
func reportRounds(r *Report, scenario, c string, rounds [][]time.Duration, f Floors) {
	if len(rounds) == 0 {
		return
	}
	sorted := slices.Clone(rounds)
	slices.SortFunc(sorted, func(a, b []time.Duration) int { return cmp.Compare(percentile(a, 100), percentile(b, 100)) })
	report(r, scenario, c, sorted[len(sorted)/2], f)
	if len(sorted) > 1 {
		r.Add(scenario, c, fmt.Sprintf("all, fastest of %d rounds", len(sorted)), ms(percentile(sorted[0], 100)), "ms")
		r.Add(scenario, c, fmt.Sprintf("all, slowest of %d rounds", len(sorted)), ms(percentile(sorted[len(sorted)-1], 100)), "ms")
	}
}

// report adds p50, p99 and the time until all of lat, with the ratio of each to the floor.
func report(r *Report, scenario, c string, lat []time.Duration, f Floors) {
	p50 := percentile(lat, 50)
	r.AddRatio(scenario, c, "p50", p50, f.Event)
	r.AddRatio(scenario, c, "p99", percentile(lat, 99), f.Event)
	r.AddRatio(scenario, c, "all", percentile(lat, 100), f.Event)
	if t := f.EngageTarget(); t > 0 {
		r.Add(scenario, c, "p50 ÷ target (3×floor + sync)", float64(p50)/float64(t), "×")
	}
	if t := f.StrictEngageTarget(); t > 0 {
		r.Add(scenario, c, "p50 ÷ strict target (sync polled every ms)", float64(p50)/float64(t), "×")
	}
}
