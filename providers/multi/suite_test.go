// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package multi_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// shortTimeout bounds waits for what takes well under a second when it works.
const shortTimeout = 30 * time.Second

// quiet is how long a test watches for something that must not happen, after a fence proved that events sent
// before it have been delivered.
const quiet = time.Second

// newManager returns a manager of the host for provider; controller names may repeat across the tests.
func newManager(t *testing.T, provider multicluster.Provider) mcmanager.Manager {
	t.Helper()
	return harness.NewManager(t, fleet.Host(), provider, func(o *mcmanager.Options) {
		o.Controller.SkipNameValidation = ptr.To(true)
	})
}

// observedCluster is a cluster whose Start is observed: stopped is closed once it returned.
type observedCluster struct {
	cluster.Cluster
	stopped chan struct{}
}

func newObservedCluster(t *testing.T, member string) *observedCluster {
	t.Helper()
	return &observedCluster{Cluster: harness.NewCluster(t, fleet, member), stopped: make(chan struct{})}
}

func (c *observedCluster) Start(ctx context.Context) error {
	defer close(c.stopped)
	return c.Cluster.Start(ctx)
}

// waitStopped fails the test unless the cluster's Start returns within shortTimeout.
func (c *observedCluster) waitStopped(t *testing.T) {
	t.Helper()
	select {
	case <-c.stopped:
	case <-time.After(shortTimeout):
		t.Fatalf("the cluster was not stopped within %s", shortTimeout)
	}
}

// fleet is shared by the tests of this package: a host and two members. Each test works in namespaces of its own.
var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 2})
}
