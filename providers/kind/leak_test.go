// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kind_test

import (
	"fmt"
	"testing"

	"go.uber.org/goleak"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/kind"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Clusters created, replaced and deleted, and then the manager stopped, leave no goroutine behind: not the poll
// loop, not the engaging workers, nothing of the clusters. Idle keep-alive connections of client-go's shared
// transports are not the provider's and are ignored.
func TestNoGoroutineLeaks(t *testing.T) {
	lister := newFakeLister()
	ns := harness.NewNamespace(t, fleet, "kind-leak", "member-0", "member-1")
	harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0", "member-1")
	ignore := goleak.IgnoreCurrent()

	p := kind.New(kind.Options{Lister: lister, PollInterval: fastPoll, ClusterOptions: []cluster.Option{harness.InNamespace(ns)}})
	_, rec, stop := harness.StartRecordingManager(t, fleet.Host(), p, nil)
	for i := range leakRounds {
		name := fmt.Sprintf("leak-%d", i)
		lister.set(t, name, "member-0")
		harness.Eventually(t, 0, name+" reconciled on member-0", func() bool { return rec.Has(harness.Seen(multicluster.ClusterName(name), "obj", "member-0")) })
		lister.set(t, name, "member-1")
		harness.Eventually(t, 0, name+" reconciled on member-1", func() bool { return rec.Has(harness.Seen(multicluster.ClusterName(name), "obj", "member-1")) })
		lister.remove(name)
		harness.Eventually(t, 0, name+" gone", func() bool { return len(p.ClusterNames()) == 0 })
	}
	stop()

	if err := harness.EventuallyNoLeak(t, ignore); err != nil {
		t.Error(err)
	}
}

// leakRounds is how many kind clusters TestNoGoroutineLeaks creates, replaces and deletes.
const leakRounds = 20
