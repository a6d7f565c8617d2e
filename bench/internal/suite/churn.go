// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"context"
	"fmt"
	"runtime"
	"time"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
)

// churnWarmup is how many cycles run before the baseline is taken.
const churnWarmup = 10

// Churn engages and disengages a cluster (a connection and cache of its own) many times with a running controller,
// and compares goroutines and heap after with before.
func Churn(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, o Options) error {
	cycles := 1000
	if o.Quick {
		cycles = 20
	}
	member := fleet.Members()[0]
	cfg, err := fleet.Config(member)
	if err != nil {
		return err
	}
	c, err := writer(cfg)
	if err != nil {
		return err
	}
	const ns = "churn-objects"
	if err := seed(ctx, c, ns, "churn-", 1); err != nil {
		return err
	}
	provider := clusters.New()
	mgr, err := newManager(fleet.Host(), provider)
	if err != nil {
		return err
	}
	seen := newFirsts()
	if err := firstReconciles(mgr, "churn", "churn-", seen); err != nil {
		return err
	}
	stop := run(ctx, mgr)
	defer func() { _ = stop() }()

	cycle := func(i int) error {
		name := multicluster.ClusterName(fmt.Sprintf("churn-%05d", i))
		cl, err := separateCluster(cfg, ns)
		if err != nil {
			return err
		}
		if err := provider.Add(ctx, name, cl); err != nil {
			return err
		}
		if err := waitUntil(ctx, time.Minute, name.String()+" reconciled", func() bool { return seen.has(name.String()) }); err != nil {
			return err
		}
		provider.Remove(name)
		// The suite's own record of the cluster goes too: only what the library keeps should remain.
		seen.forget(name.String())
		return waitUntil(ctx, time.Minute, name.String()+" gone", func() bool { return len(provider.ClusterNames()) == 0 })
	}
	// Warm-up cycles first, so that what is created once per process (clients, metrics, connections) is in the
	// baseline, and what earlier scenarios left to wind down has ended.
	for i := range churnWarmup {
		if err := cycle(i); err != nil {
			return err
		}
	}
	heapBefore, goBefore := settled(ctx)
	ownBefore := mcenvtest.GoroutinesBesidesConnections()
	if !o.Quick {
		if err := writeProfiles(o.Out, "churn-before"); err != nil {
			return err
		}
	}
	started := time.Now()
	for i := churnWarmup; i < churnWarmup+cycles; i++ {
		if err := cycle(i); err != nil {
			return err
		}
	}
	elapsed := time.Since(started)
	// Teardown is asynchronous (informers stop after their contexts end): give it time to reach the baseline, then
	// measure what is left.
	_ = waitUntil(ctx, 30*time.Second, "goroutines back to the baseline", func() bool { return runtime.NumGoroutine() <= goBefore })
	heapAfter, goAfter := settled(ctx)
	ownAfter := mcenvtest.GoroutinesBesidesConnections()
	if !o.Quick {
		if err := writeProfiles(o.Out, "churn-after"); err != nil {
			return err
		}
	}
	c0 := fmt.Sprintf("%d cycles", cycles)
	r.Add("churn", c0, "goroutines before", float64(goBefore), "")
	r.Add("churn", c0, "goroutines after", float64(goAfter), "")
	r.Add("churn", c0, "heap before", float64(heapBefore)/(1<<20), "MiB")
	r.Add("churn", c0, "heap after", float64(heapAfter)/(1<<20), "MiB")
	r.Add("churn", c0, "goroutines after − before", float64(goAfter-goBefore), "")
	r.Add("churn", c0, "goroutines after − before, besides pooled HTTP connections", float64(ownAfter-ownBefore), "")
	r.Add("churn", c0, "heap change", 100*(float64(heapAfter)-float64(heapBefore))/float64(heapBefore), "%")
	r.Add("churn", c0, "cycle (engage → reconcile → disengage)", ms(elapsed)/float64(cycles), "ms")
	return nil
}
