// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package harness

import (
	"context"
	"testing"

	"k8s.io/client-go/rest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// NewManager builds a multi-cluster manager for the host at cfg with the metrics server and health probes off, so
// that tests can run side by side. opts may change any other manager option.
func NewManager(t testing.TB, cfg *rest.Config, provider multicluster.Provider, opts func(*mcmanager.Options), mcOpts ...mcmanager.Option) mcmanager.Manager {
	t.Helper()
	options := mcmanager.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	}
	if opts != nil {
		opts(&options)
	}
	mgr, err := mcmanager.New(cfg, provider, options, mcOpts...)
	if err != nil {
		t.Fatalf("manager: %v", err)
	}
	return mgr
}

// StartManager runs mgr in the background until the returned function is called or the test ends; either way it
// then waits for Start to return and fails the test if it returned an error.
func StartManager(t testing.TB, ctx context.Context, mgr mcmanager.Manager) (stop func()) { //nolint:revive // the test comes first, as in testing helpers
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager returned: %v", err)
		}
	}
	t.Cleanup(stop)
	return stop
}
