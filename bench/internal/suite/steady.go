// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
)

// steadyWorkers is the controller's MaxConcurrentReconciles in the steady and memory scenarios: one per core of
// the machine the suite was written for.
const steadyWorkers = 2

// FleetSize is the shape of the steady and memory scenarios.
type FleetSize struct {
	// Clusters engaged at once.
	Clusters int
	// Objects is how many ConfigMaps each cluster has (the one watched type).
	Objects int
	// Ticks is how many writes the steady latency is measured over.
	Ticks int
}

// steadyController registers the controller of the steady and memory scenarios: ConfigMaps, steadyWorkers workers,
// no simulated work; the first object of each cluster is the tick object.
func steadyController(mgr mcmanager.Manager, name string, l *latencies) error {
	return mcbuilder.ControllerManagedBy(mgr).
		Named(name).
		For(&corev1.ConfigMap{}).
		WithOptions(mccontroller.Options{MaxConcurrentReconciles: steadyWorkers}).
		Complete(l.reconciler(mgr, objectName(0), 0))
}

// SteadySeparate engages size.Clusters separate clusters (a cluster.Cluster each, spread over the fleet's members,
// each seeing a namespace of its own with size.Objects ConfigMaps) and measures: reconciles per second while the
// controller works through every object's first reconcile (saturation), then write → reconcile latency of single
// writes spread over the clusters. (What the clusters cost is the memory scenario's.)
func SteadySeparate(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, size FleetSize, f Floors) error {
	const prefix = "ss-"
	members := fleet.Members()
	writers := make([]client.Client, len(members))
	for i, m := range members {
		cfg, err := fleet.Config(m)
		if err != nil {
			return err
		}
		if writers[i], err = writer(cfg); err != nil {
			return err
		}
	}
	nsOf := func(i int) string { return fmt.Sprintf("%s%04d", prefix, i) }
	if err := parallel(4, size.Clusters, func(i int) error {
		return seed(ctx, writers[i%len(members)], nsOf(i), prefix, size.Objects)
	}); err != nil {
		return err
	}

	provider := clusters.New()
	mgr, err := newManager(fleet.Host(), provider)
	if err != nil {
		return err
	}
	l := newLatencies()
	if err := steadyController(mgr, "steady-separate", l); err != nil {
		return err
	}
	stop := run(ctx, mgr)
	defer func() { _ = stop() }()
	<-mgr.Elected()

	built := make([]cluster.Cluster, size.Clusters)
	for i := range built {
		cfg, err := fleet.Config(members[i%len(members)])
		if err != nil {
			return err
		}
		if built[i], err = separateCluster(cfg, nsOf(i)); err != nil {
			return err
		}
	}
	if err := parallel(min(size.Clusters, 100), size.Clusters, func(i int) error {
		return provider.Add(ctx, multicluster.ClusterName(nsOf(i)), built[i])
	}); err != nil {
		return err
	}
	c := fmt.Sprintf("separate N=%d", size.Clusters)
	if err := saturation(ctx, r, c, l, size); err != nil {
		return err
	}
	return steadyLatency(ctx, r, c, l, size, f, func(i int) (client.Client, multicluster.ClusterName, string) {
		return writers[i%len(members)], multicluster.ClusterName(nsOf(i)), nsOf(i)
	})
}

// SteadyVirtual is SteadySeparate for virtual clusters (namespace provider, one shared cluster on the host). (What
// virtual clusters cost is the namespaces scenario's.)
func SteadyVirtual(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, size FleetSize, f Floors) error {
	const prefix = "sv-"
	w, err := writer(fleet.Host())
	if err != nil {
		return err
	}
	nsOf := func(i int) string { return fmt.Sprintf("%s%04d", prefix, i) }
	if err := parallel(4, size.Clusters, func(i int) error { return seed(ctx, w, nsOf(i), prefix, size.Objects) }); err != nil {
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
	l := newLatencies()
	if err := steadyController(mgr, "steady-virtual", l); err != nil {
		return err
	}
	stop := run(ctx, mgr)
	defer func() { _ = stop() }()
	c := fmt.Sprintf("virtual N=%d", size.Clusters)
	if err := saturation(ctx, r, c, l, size); err != nil {
		return err
	}
	return steadyLatency(ctx, r, c, l, size, f, func(i int) (client.Client, multicluster.ClusterName, string) {
		return w, multicluster.ClusterName(nsOf(i)), nsOf(i)
	})
}

// saturation waits for the first reconcile of every object of every cluster and reports the rate.
func saturation(ctx context.Context, r *Report, c string, l *latencies, size FleetSize) error {
	want := size.Clusters * size.Objects
	if err := waitUntil(ctx, 10*time.Minute, fmt.Sprintf("%d first reconciles", want), func() bool {
		n, _ := l.reconciles()
		return n >= want
	}); err != nil {
		return err
	}
	n, d := l.reconciles()
	if d > 0 {
		r.Add("steady", c, fmt.Sprintf("reconciles/s at saturation (%d workers)", steadyWorkers), float64(n)/d.Seconds(), "1/s")
	}
	return nil
}

// steadyLatency writes the tick object of one cluster after another, one write at a time, and reports write →
// reconcile p50 and p99.
func steadyLatency(ctx context.Context, r *Report, c string, l *latencies, size FleetSize, f Floors,
	target func(i int) (w client.Client, clusterName multicluster.ClusterName, ns string)) error {
	pace := time.NewTicker(20 * time.Millisecond)
	defer pace.Stop()
	for i := range size.Ticks {
		w, clusterName, ns := target(i % size.Clusters)
		if _, err := l.tick(ctx, w, clusterName, ns, objectName(0)); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-pace.C:
		}
	}
	if err := waitUntil(ctx, time.Minute, "every tick reconciled", func() bool { return l.unreconciled() == 0 }); err != nil {
		return err
	}
	lat := l.samples()
	r.AddRatio("steady", c, "write→reconcile p50", percentile(lat, 50), f.Event)
	r.AddRatio("steady", c, "write→reconcile p99", percentile(lat, 99), f.Event)
	return nil
}
