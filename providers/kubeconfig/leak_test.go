// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig_test

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Secrets created and deleted over and over leave no goroutine behind: neither the clusters that were engaged and
// reconciled, nor the attempts aborted while their cache was stalled, nor the provider's workers. Stopping the
// manager then ends the provider's own goroutines too.
func TestEngageDisengageLeaksNothing(t *testing.T) {
	server, ca := stallingProxy(t, "member-0")
	ns := harness.NewNamespace(t, fleet, "kc-leak", mcenvtest.HostName, "member-0")
	dumpOnFailure(t, ns)
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	stalledKubeconfig := harness.TokenKubeconfig(t, server, ca, "stalled-token")
	beforeManager := goleak.IgnoreCurrent()

	f := startFleetController(t, kubeconfig.Options{Namespace: ns, WaitCacheTimeout: time.Minute}, ns, withOwnerIndex)
	hc := hostClient(t)
	cycle := func(i int) {
		t.Helper()
		alive := kubeconfigSecret(ns, fmt.Sprintf("alive-%d", i), memberKubeconfig(t, "member-0"))
		stalled := kubeconfigSecret(ns, fmt.Sprintf("stalled-%d", i), stalledKubeconfig)
		if err := hc.Create(quietContext(t), stalled); err != nil {
			t.Fatal(err)
		}
		if err := hc.Create(quietContext(t), alive); err != nil {
			t.Fatal(err)
		}
		f.waitClusters(t, multicluster.ClusterName(alive.Name))
		f.waitReconciled(t, alive.Name+"/obj=member-0")
		harness.Eventually(t, shortTimeout, stalled.Name+" being engaged", func() bool {
			return getErr(f.provider.Get(t.Context(), multicluster.ClusterName(stalled.Name))) == nil
		})
		if err := hc.Delete(t.Context(), stalled); err != nil {
			t.Fatal(err)
		}
		if err := hc.Delete(t.Context(), alive); err != nil {
			t.Fatal(err)
		}
		f.waitClusters(t)
		harness.Eventually(t, shortTimeout, stalled.Name+" forgotten", func() bool {
			return errors.Is(getErr(f.provider.Get(t.Context(), multicluster.ClusterName(stalled.Name))), multicluster.ErrClusterNotFound)
		})
	}

	// Warm-up cycles let client-go and the manager set up what they keep for the process.
	cycle(0)
	cycle(1)
	ignore := goleak.IgnoreCurrent()
	baseline := runtime.NumGoroutine()
	const cycles = 10
	for i := range cycles {
		cycle(2 + i)
	}
	if err := harness.EventuallyNoLeak(t, ignore); err != nil {
		t.Errorf("after %d cycles (baseline %d goroutines, now %d): %v", cycles, baseline, runtime.NumGoroutine(), err)
	}

	f.stop()
	if err := harness.EventuallyNoLeak(t, beforeManager); err != nil {
		t.Errorf("after the manager stopped: %v", err)
	}
}
