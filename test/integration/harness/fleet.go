package harness

import (
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
)

// RunWithFleet is mcenvtest.RunWithFleet: the body of a test package's TestMain.
func RunWithFleet(m *testing.M, fleet **mcenvtest.Fleet, opts mcenvtest.Options) {
	mcenvtest.RunWithFleet(m, fleet, opts)
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
