// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
)

// Floors are the latencies no controller can beat, measured with bare client-go informers on the same control
// plane as the scenarios.
type Floors struct {
	// Event is the p50 of write → event delivered to an informer.
	Event time.Duration
	// Sync is the p50 of an informer's start → synced, for a namespace with one object, waited for the way
	// controller-runtime waits for caches (client-go's WaitForCacheSync, which polls every 100ms).
	Sync time.Duration
	// RawSync is Sync with the informer's HasSynced polled every millisecond: when the informer had in fact synced.
	RawSync time.Duration
}

// EngageTarget is the bound for engage latency: three times the event floor plus the cache-sync time.
func (f Floors) EngageTarget() time.Duration { return 3*f.Event + f.Sync }

// StrictEngageTarget is EngageTarget with the cache-sync time polled every millisecond.
func (f Floors) StrictEngageTarget() time.Duration { return 3*f.Event + f.RawSync }

// Floor measures write → event delivered to a bare client-go informer on the host, and the time a bare informer
// takes from its start to synced.
func Floor(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, o Options) (Floors, error) {
	writes, syncs := 200, 20
	if o.Quick {
		writes, syncs = 20, 3
	}
	cs, err := kubernetes.NewForConfig(fleet.Host())
	if err != nil {
		return Floors{}, err
	}
	const ns = "bench-floor"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return Floors{}, err
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "present"}}, metav1.CreateOptions{}); err != nil {
		return Floors{}, err
	}

	// Start → synced, with a fresh informer (and client) each time.
	syncLat := make([]time.Duration, 0, syncs)
	rawSyncLat := make([]time.Duration, 0, syncs)
	for range syncs {
		d, raw, err := informerSync(ctx, fleet, ns)
		if err != nil {
			return Floors{}, err
		}
		syncLat = append(syncLat, d)
		rawSyncLat = append(rawSyncLat, raw)
	}

	seen := newFirsts()
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().ConfigMaps().Informer()
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		if cm, ok := obj.(*corev1.ConfigMap); ok {
			seen.mark(cm.Name)
		}
	}}); err != nil {
		return Floors{}, err
	}
	infCtx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		factory.Shutdown()
	}()
	factory.Start(infCtx.Done())
	factory.WaitForCacheSync(infCtx.Done())

	lat := make([]time.Duration, 0, writes)
	for i := range writes {
		name := fmt.Sprintf("floor-%04d", i)
		start := time.Now()
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			return Floors{}, err
		}
		if err := waitUntil(ctx, 30*time.Second, "the informer to see "+name, func() bool { return seen.has(name) }); err != nil {
			return Floors{}, err
		}
		lat = append(lat, seen.at(name).Sub(start))
	}
	f := Floors{Event: percentile(lat, 50), Sync: percentile(syncLat, 50), RawSync: percentile(rawSyncLat, 50)}
	r.Add("floor", "informer", "write→event p50", ms(f.Event), "ms")
	r.Add("floor", "informer", "write→event p99", ms(percentile(lat, 99)), "ms")
	r.Add("floor", "informer", "start→synced p50", ms(f.Sync), "ms")
	r.Add("floor", "informer", "start→synced p50 (polled every ms)", ms(f.RawSync), "ms")
	r.Add("floor", "informer", "engage target (3×p50 + sync)", ms(f.EngageTarget()), "ms")
	r.Add("floor", "informer", "strict engage target (3×p50 + sync polled every ms)", ms(f.StrictEngageTarget()), "ms")
	return f, nil
}

// informerSync returns how long a new informer on ns takes from its start until WaitForCacheSync returns, and until
// it has synced (polled every millisecond).
func informerSync(ctx context.Context, fleet *mcenvtest.Fleet, ns string) (waited, raw time.Duration, err error) {
	cs, err := kubernetes.NewForConfig(fleet.Host())
	if err != nil {
		return 0, 0, err
	}
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns))
	inf := factory.Core().V1().ConfigMaps().Informer()
	infCtx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		factory.Shutdown()
	}()
	start := time.Now()
	factory.Start(infCtx.Done())
	// Poll every millisecond for when the informer has synced, and separately wait the way controller-runtime
	// waits for a cache (client-go's WaitForCacheSync, which polls every 100ms).
	rawDone := make(chan time.Duration, 1)
	go func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for !inf.HasSynced() {
			select {
			case <-infCtx.Done():
				rawDone <- 0
				return
			case <-tick.C:
			}
		}
		rawDone <- time.Since(start)
	}()
	if !toolscache.WaitForCacheSync(infCtx.Done(), inf.HasSynced) {
		return 0, 0, ctx.Err()
	}
	waited = time.Since(start)
	return waited, <-rawDone, nil
}
