package harness

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
)

// RunWithFleet is the body of a test package's TestMain: it starts a fleet with a host and the given number of
// members, runs the tests, stops the fleet and exits. The fleet is stored in *fleet for the tests to use.
//
// Under go test -fuzz it starts nothing and runs the fuzz targets only (see Fuzzing).
func RunWithFleet(m *testing.M, fleet **mcenvtest.Fleet, opts mcenvtest.Options) {
	if Fuzzing() {
		os.Exit(m.Run())
	}
	logf.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.UseDevMode(true)))
	f := mcenvtest.NewFleet(opts)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	if err := f.Start(ctx); err != nil {
		cancel()
		fmt.Fprintln(os.Stderr, "starting the fleet:", err)
		os.Exit(1)
	}
	cancel()
	*fleet = f
	code := m.Run()
	if err := f.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the fleet:", err)
	}
	os.Exit(code)
}

// Config returns a member's rest.Config or fails the test.
func Config(t testing.TB, fleet *mcenvtest.Fleet, name string) *rest.Config {
	t.Helper()
	cfg, err := fleet.Config(name)
	if err != nil {
		t.Fatalf("config of %s: %v", name, err)
	}
	return cfg
}

// Client returns a direct (uncached) client of a member or fails the test.
func Client(t testing.TB, fleet *mcenvtest.Fleet, name string) client.Client {
	t.Helper()
	c, err := client.New(Config(t, fleet, name), client.Options{})
	if err != nil {
		t.Fatalf("client of %s: %v", name, err)
	}
	return c
}

// NewCluster builds (does not start) a cluster.Cluster for a member or fails the test.
func NewCluster(t testing.TB, fleet *mcenvtest.Fleet, name string, opts ...cluster.Option) cluster.Cluster {
	t.Helper()
	cl, err := cluster.New(Config(t, fleet, name), opts...)
	if err != nil {
		t.Fatalf("cluster for %s: %v", name, err)
	}
	return cl
}
