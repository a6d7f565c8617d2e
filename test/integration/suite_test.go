package integration

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// fleet is shared by the tests of this package: a host and three members, started once.
var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	logf.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.UseDevMode(true)))
	fleet = mcenvtest.NewFleet(mcenvtest.Options{Members: 3})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	if err := fleet.Start(ctx); err != nil {
		cancel()
		fmt.Fprintln(os.Stderr, "starting the fleet:", err)
		os.Exit(1)
	}
	cancel()
	code := m.Run()
	if err := fleet.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the fleet:", err)
	}
	os.Exit(code)
}

// memberConfig returns a member's rest.Config or fails the test.
func memberConfig(t *testing.T, name string) *rest.Config {
	t.Helper()
	cfg, err := fleet.Config(name)
	if err != nil {
		t.Fatalf("config of %s: %v", name, err)
	}
	return cfg
}

// newCluster builds (does not start) a cluster.Cluster for a member.
func newCluster(t *testing.T, name string, opts ...cluster.Option) cluster.Cluster {
	t.Helper()
	cl, err := cluster.New(memberConfig(t, name), opts...)
	if err != nil {
		t.Fatalf("cluster for %s: %v", name, err)
	}
	return cl
}

// newManager builds a multi-cluster manager on the host with metrics and health probes off.
func newManager(t *testing.T, provider multicluster.Provider, opts ...mcmanager.Option) mcmanager.Manager {
	t.Helper()
	mgr, err := mcmanager.New(fleet.Host(), provider, mcmanager.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	}, opts...)
	if err != nil {
		t.Fatalf("manager: %v", err)
	}
	return mgr
}

// startManager runs mgr until the test ends and waits for it to return.
func startManager(t *testing.T, mgr mcmanager.Manager) context.CancelFunc {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager returned: %v", err)
		}
	})
	return cancel
}
