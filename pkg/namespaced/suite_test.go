// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespaced_test

import (
	"testing"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/namespaced"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fleet is shared by the integration tests of this package: a host control plane only, whose namespaces the tests
// scope clusters to. Every test uses namespaces of its own, prefixed with the test's short name.
var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{})
}

// hostClient returns a direct client of the host control plane.
func hostClient(t testing.TB) client.Client {
	t.Helper()
	return harness.Client(t, fleet, mcenvtest.HostName)
}

// newHost runs a cluster of the host control plane until the test ends, waits for its cache to start, and returns
// it as the host of namespace-scoped clusters.
func newHost(t testing.TB) *namespaced.Host {
	t.Helper()
	shared := harness.NewCluster(t, fleet, mcenvtest.HostName)
	harness.RunCluster(t, shared)
	if !shared.GetCache().WaitForCacheSync(t.Context()) {
		t.Fatal("the shared cluster's cache did not start")
	}
	return namespaced.NewHost(shared, logr.Discard())
}

// verbsFixture is the namespace-scoped cluster of a, which the test drives, beside a namespace b, its neighbour.
type verbsFixture struct {
	host client.Client
	a, b string
	vc   *namespaced.Cluster
}

func newVerbsFixture(t *testing.T, prefix string) *verbsFixture {
	t.Helper()
	f := &verbsFixture{host: hostClient(t), a: harness.UniqueName(prefix + "-a"), b: harness.UniqueName(prefix + "-b")}
	harness.CreateNamespaces(t, f.host, f.a, f.b)
	f.vc = newHost(t).NewCluster(f.a)
	return f
}
