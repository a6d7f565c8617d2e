// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Clusters behind one host (a fleet reached through a proxy or a gateway, with one rest.Config each but the same
// address and TLS settings) share client-go's transport. Added all at once with AddConfig, their first requests go
// out together, before that transport has a connection: each would open one, TLS handshake included, and all but
// one would be closed again. clusters.NewCluster lets the first request open the connection and the others wait
// for it: the clusters reach the member over one or two connections, not one per cluster.
func TestClustersBehindOneHostShareTheirConnection(t *testing.T) {
	const n = 40
	cfg, connections := harness.CountingMemberProxy(t, fleet, "member-0")
	addBehindOneHost(t, cfg, "one-host", n)
	if got := connections(); got > 2 {
		t.Errorf("%d clusters behind one host opened %d connections to it, want at most 2", n, got)
	} else {
		t.Logf("%d clusters behind one host opened %d connection(s) to it", n, got)
	}
}

// Every cluster's watch holds a stream for as long as it runs, so clusters behind one host fill the connections to
// it, and each request that then finds them full would open a connection of its own in client-go's transport (Go's
// transport dials for each, and keeps one). clusters.NewCluster sends the requests of a host that speaks HTTP/2
// over a pool that opens the next connection only when the ones it has are full, one at a time: 40 clusters added
// at once behind a proxy allowing 10 streams a connection open about as many connections as their streams need
// (40 watches, and the lists and discovery requests in flight beside them), not one per request that found no room.
func TestClustersBehindOneHostOpenConnectionsAsTheirStreamsNeed(t *testing.T) {
	const n, maxStreams = 40, 10
	cfg, connections := harness.CountingMemberProxyWithStreams(t, fleet, "member-0", maxStreams)
	addBehindOneHost(t, cfg, "full-host", n)
	// At most every cluster's watch and one other request of each at once, on full connections, and the first
	// connection, which client-go's transport opens before the host is known to speak HTTP/2.
	if got, limit := connections(), int64(1+2*n/maxStreams); got > limit {
		t.Errorf("%d clusters behind a host allowing %d streams a connection opened %d connections to it, want at most %d",
			n, maxStreams, got, limit)
	} else {
		t.Logf("%d clusters behind a host allowing %d streams a connection opened %d connections to it", n, maxStreams, got)
	}
}

// addBehindOneHost adds n clusters reached with cfg (all the same member, behind one address) at once with
// AddConfig to a manager running a ConfigMap controller, and waits until each has reconciled the ConfigMap of a
// namespace of its own name prefix.
func addBehindOneHost(t *testing.T, cfg *rest.Config, prefix string, n int) {
	t.Helper()
	ns := fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano())
	c := harness.Client(t, fleet, "member-0")
	if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cm"}}); err != nil {
		t.Fatal(err)
	}

	provider := clusters.New()
	mgr := harness.NewManager(t, harness.Config(t, fleet, mcenvtest.HostName), provider, nil)
	seen := harness.NewRecorder()
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named(ns).
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			if req.Namespace == ns {
				seen.Add(req.ClusterName.String())
			}
			return reconcile.Result{}, nil
		})); err != nil {
		t.Fatal(err)
	}
	stop := harness.StartManager(t, t.Context(), mgr)
	t.Cleanup(stop)

	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := provider.AddConfig(t.Context(), multicluster.ClusterName(fmt.Sprintf("%s-%d", prefix, i)), cfg); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	harness.Eventually(t, deadline, "every cluster reconciled", func() bool { return len(seen.Keys()) == n })
}
