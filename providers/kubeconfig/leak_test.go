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
	ns := harness.UniqueName("kc-leak")
	dumpOnFailure(t, ns)
	harness.CreateNamespace(t, fleet, ns, mcenvtest.HostName, "member-0")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	server, ca := stallingProxy(t, "member-0")
	stalledKubeconfig := tokenKubeconfig(t, server, ca, "stalled-token")
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
	if err := eventuallyNoLeak(t, ignore); err != nil {
		t.Errorf("after %d cycles (baseline %d goroutines, now %d): %v", cycles, baseline, runtime.NumGoroutine(), err)
	}

	f.stop()
	if err := eventuallyNoLeak(t, beforeManager); err != nil {
		t.Errorf("after the manager stopped: %v", err)
	}
}

// eventuallyNoLeak waits up to shortTimeout for the goroutines not ignored to end (teardown is asynchronous), and
// returns goleak's report of those left.
func eventuallyNoLeak(t *testing.T, ignore goleak.Option) error {
	t.Helper()
	opts := harness.LeakOptions(ignore)
	deadline := time.Now().Add(shortTimeout)
	for goleak.Find(opts...) != nil && time.Now().Before(deadline) {
		select {
		case <-time.After(100 * time.Millisecond):
		case <-t.Context().Done():
			return t.Context().Err()
		}
	}
	return goleak.Find(opts...)
}
