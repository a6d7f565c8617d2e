// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusterinventoryapi_test

import (
	"fmt"
	"testing"

	"go.uber.org/goleak"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	clusterinventoryapi "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Profiles engaged through a credential plugin, replaced (a new endpoint) and deleted, and then the manager stopped, leave no goroutine behind. Idle keep-alive
// connections of client-go's shared transports and the stopped hub manager's event broadcaster are not the
// provider's.
func TestNoGoroutineLeaks(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	ns := harness.NewNamespace(t, fleet, "cip-leak", hub, "member-0", "member-1")
	harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0", "member-1")

	p, _, rec, stop := start(t, clusterinventoryapi.Options{
		KubeconfigStrategyOption: accessOption(t, ""),
		ClusterOptions:           []cluster.Option{harness.InNamespace(ns)},
		IsReady:                  readyIn(ns),
	})
	c := hubClient(t)
	for i := range leakRounds {
		short := fmt.Sprintf("leak-%d", i)
		name := multicluster.ClusterName(ns + "/" + short)
		clp := createProfile(t, ns, short, true, accessProviders(accessEntry(t, "token", "member-0")))
		harness.Eventually(t, 0, string(name)+" reconciled on member-0", func() bool { return rec.Has(harness.Seen(name, "obj", "member-0")) })
		setAccessProviders(t, clp, accessEntry(t, "token", "member-1"))
		harness.Eventually(t, 0, string(name)+" reconciled on member-1", func() bool { return rec.Has(harness.Seen(name, "obj", "member-1")) })
		if err := c.Delete(t.Context(), clp); err != nil {
			t.Fatal(err)
		}
		harness.Eventually(t, 0, string(name)+" gone", func() bool { return len(namesIn(p, ns)) == 0 })
	}
	stop()

	opts := append([]goleak.Option{ignore},
		goleak.IgnoreAnyFunction("k8s.io/apimachinery/pkg/watch.(*Broadcaster).loop"),
		goleak.IgnoreAnyFunction("k8s.io/client-go/tools/record.(*eventBroadcasterImpl).StartEventWatcher.func1"),
		goleak.IgnoreAnyFunction("k8s.io/client-go/tools/record.(*recorder).generateEvent.func1"),
		goleak.IgnoreAnyFunction("k8s.io/apimachinery/pkg/watch.(*Broadcaster).blockQueue"),
		goleak.IgnoreAnyFunction("k8s.io/apimachinery/pkg/watch.(*filteredWatch).loop"),
	)
	if err := harness.EventuallyNoLeak(t, opts...); err != nil {
		t.Error(err)
	}
}

// leakRounds is how many profiles TestNoGoroutineLeaks makes ready, rotates and deletes.
const leakRounds = 10
