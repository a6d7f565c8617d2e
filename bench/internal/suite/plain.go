// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"context"
	"errors"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// plainManager returns a plain controller-runtime manager of cfg whose cache sees namespace ns only (inNamespace), with one
// ConfigMap controller named name (controller-runtime's defaults: one worker, its FIFO queue) running r: what a
// program that runs one manager per cluster has for each cluster. Metrics and probe servers are off, as in every
// arm of the suite.
func plainManager(cfg *rest.Config, ns, name string, r reconcile.Reconciler) (manager.Manager, error) {
	opts := manager.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	}
	inNamespace(&opts.Cache, ns)
	mgr, err := manager.New(cfg, opts)
	if err != nil {
		return nil, err
	}
	if err := builder.ControllerManagedBy(mgr).Named(name).For(&corev1.ConfigMap{}).Complete(r); err != nil {
		return nil, err
	}
	return mgr, nil
}

// runAll starts every manager at once, each in a goroutine of its own, and returns a function that stops them all
// and waits for them.
func runAll(ctx context.Context, mgrs []manager.Manager) (stop func() error) {
	ctx, cancel := context.WithCancel(ctx)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, mgr := range mgrs {
		wg.Go(func() {
			if err := mgr.Start(ctx); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	return func() error {
		cancel()
		wg.Wait()
		return errors.Join(errs...)
	}
}
