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
	ns := fmt.Sprintf("one-host-%d", time.Now().UnixNano())
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
	defer stop()

	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := provider.AddConfig(t.Context(), multicluster.ClusterName(fmt.Sprintf("behind-proxy-%d", i)), cfg); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	harness.Eventually(t, deadline, "every cluster reconciled", func() bool { return len(seen.Keys()) == n })
	if got := connections(); got > 2 {
		t.Errorf("%d clusters behind one host opened %d connections to it, want at most 2", n, got)
	} else {
		t.Logf("%d clusters behind one host opened %d connection(s) to it", n, got)
	}
}
