// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package capi_test

import (
	"fmt"
	"testing"

	"go.uber.org/goleak"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	capi "sigs.k8s.io/multicluster-runtime/providers/cluster-api"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Clusters provisioned, given a new kubeconfig and deleted, and one without a kubeconfig (which gets a Warning
// Event), and then the manager stopped, leave no goroutine behind: not the provider's engaging goroutines, nothing
// of the clusters, nothing of its controller or of the host manager's event broadcaster. Idle keep-alive
// connections of client-go's shared transports are not the provider's (harness.SharedGoroutines).
func TestNoGoroutineLeaks(t *testing.T) {
	c := hostClient(t)
	ns := harness.NewNamespace(t, fleet, "capi-leak", mcHost, "member-0", "member-1")
	harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0", "member-1")
	ignore := goleak.IgnoreCurrent()

	p, _, rec, stop := start(t, capi.Options{ClusterOptions: []cluster.Option{harness.InNamespace(ns)}})
	broken := createCluster(t, ns, "broken", true)
	harness.Eventually(t, 0, "a Warning Event on the Cluster without a kubeconfig", func() bool {
		return warnedAbout(t, ns, "")["broken"]
	})
	if err := c.Delete(t.Context(), broken); err != nil {
		t.Fatal(err)
	}
	for i := range leakRounds {
		short := fmt.Sprintf("leak-%d", i)
		name := multicluster.ClusterName(ns + "/" + short)
		setKubeconfig(t, ns, short, "member-0")
		ccl := createCluster(t, ns, short, true)
		harness.Eventually(t, 0, name.String()+" reconciled on member-0", func() bool { return rec.Has(harness.Seen(name, "obj", "member-0")) })
		setKubeconfig(t, ns, short, "member-1")
		harness.Eventually(t, 0, name.String()+" reconciled on member-1", func() bool { return rec.Has(harness.Seen(name, "obj", "member-1")) })
		if err := c.Delete(t.Context(), ccl); err != nil {
			t.Fatal(err)
		}
		harness.Eventually(t, 0, name.String()+" gone", func() bool { return len(namesIn(p, ns)) == 0 })
	}
	stop()

	opts := append([]goleak.Option{ignore},
		// The host manager's metadata informer of Secrets wraps its watch in apimachinery's watch.Filter (the GVK
		// fixup of controller-runtime's metadata informers), whose goroutine blocks forever on a send if an event
		// is in flight when the informer stops: it is the host cache's, not the provider's.
		goleak.IgnoreAnyFunction("k8s.io/apimachinery/pkg/watch.(*filteredWatch).loop"),
	)
	if err := harness.EventuallyNoLeak(t, opts...); err != nil {
		t.Error(err)
	}
}

// leakRounds is how many Clusters TestNoGoroutineLeaks provisions, rotates and deletes.
const leakRounds = 10
