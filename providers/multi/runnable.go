// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package multi

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// ManagerSetupProvider is a provider that discovers its clusters through controllers it registers on the manager
// (SetupWithManager); the kubeconfig provider is one. Following the provider convention (see pkg/multicluster), it
// is also a multicluster.ProviderRunnable that engages its clusters when started; a provider that is not engages
// them with the manager it was set up with.
type ManagerSetupProvider interface {
	multicluster.Provider

	// SetupWithManager registers the provider's controllers on mgr.
	SetupWithManager(ctx context.Context, mgr mcmanager.Manager) error
}

// AsRunnable adapts a ManagerSetupProvider so that it can be an inner provider of a composed Provider: the result
// is a multicluster.ProviderRunnable whose Start sets p up with mgr and then, if p is a ProviderRunnable, starts it
// with the Aware Start is given (the composed provider's, which prefixes the names of its clusters); a p that is
// not engages its clusters with mgr, whose engagements the adapter redirects to that Aware. Get and IndexField are
// p's.
//
// Start blocks until its context ends. p is set up once: controller-runtime cannot remove a controller, so the
// controllers p registered keep running on mgr after the adapter's context ends (its clusters are disengaged, and
// nothing more is engaged), and starting the adapter a second time returns an error. Give each adapted provider its
// own controller name (for the kubeconfig provider, Options.ControllerName) when several run on one manager.
func AsRunnable(p ManagerSetupProvider, mgr mcmanager.Manager) multicluster.Provider {
	return &setupRunnable{ManagerSetupProvider: p, mgr: mgr}
}

// setupRunnable is the provider AsRunnable returns.
type setupRunnable struct {
	ManagerSetupProvider
	mgr mcmanager.Manager

	mu      sync.Mutex
	started bool
}

var (
	_ multicluster.Provider         = &setupRunnable{}
	_ multicluster.ProviderRunnable = &setupRunnable{}
)

// Start sets the provider up with the manager and runs it with aware (a provider that is not a ProviderRunnable
// has its engagements with the manager redirected to aware) until ctx ends.
func (r *setupRunnable) Start(ctx context.Context, aware multicluster.Aware) error {
	if r.mgr == nil {
		return errors.New("multi provider: AsRunnable was given a nil manager")
	}
	r.mu.Lock()
	if r.started {
		r.mu.Unlock()
		return errors.New("multi provider: a provider adapted with AsRunnable can be started only once")
	}
	r.started = true
	r.mu.Unlock()

	if err := r.SetupWithManager(ctx, &engagingManager{Manager: r.mgr, aware: aware}); err != nil {
		return fmt.Errorf("multi provider: setting up the provider with the manager: %w", err)
	}
	if runnable, ok := r.ManagerSetupProvider.(multicluster.ProviderRunnable); ok {
		return runnable.Start(ctx, aware)
	}
	<-ctx.Done()
	return nil
}

// engagingManager is the manager an adapted provider is set up with: the real manager, except that Engage goes to
// the Aware of the composed provider.
type engagingManager struct {
	mcmanager.Manager
	aware multicluster.Aware
}

// Engage engages the cluster with the composed provider's Aware.
func (m *engagingManager) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	return m.aware.Engage(ctx, name, cl)
}
