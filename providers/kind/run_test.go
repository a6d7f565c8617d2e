// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kind_test

import (
	"context"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/providers/kind"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// The shape of the README sample: the manager starts the provider and the program also runs `go provider.Run(ctx,
// mgr)`. Discovery runs once: with a poll interval longer than the test, kind is listed exactly once, the cluster is
// engaged once and reconciled, and Run returns nil when its context ends. If Run was the one running discovery, the
// manager's start of the provider takes over, so the cluster is reconciled afterwards either way.
func TestRunWithManagerStartDiscoversOnce(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "kind-run", "member-0")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	lister := newFakeLister()
	lister.set(t, "dev", "member-0")
	p := kind.New(kind.Options{Lister: lister, PollInterval: time.Hour, ClusterOptions: []cluster.Option{harness.InNamespace(ns)}})

	runCtx, stopRun := context.WithCancel(t.Context())
	defer stopRun()
	mgr, rec, _ := harness.StartRecordingManager(t, fleet.Host(), p, nil) // the manager starts the provider
	done := make(chan error, 1)
	go func() { done <- p.Run(runCtx, mgr) }()

	harness.Eventually(t, 0, "dev reconciled", func() bool { return rec.Has(harness.Seen("dev", "obj", "member-0")) })
	harness.Consistently(t, 2*time.Second, "kind listed once, dev reconciled once", func() bool {
		return lister.listCount() == 1 && rec.Count(harness.Seen("dev", "obj", "member-0")) == 1
	})

	stopRun()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run() = %v, want nil", err)
		}
	case <-time.After(harness.DefaultTimeout):
		t.Fatal("Run did not return after its context ended")
	}
	// Discovery goes on (or is taken over by the manager's start of the provider): dev is reconciled.
	harness.CreateConfigMap(t, fleet, "member-0", ns, "later")
	harness.Eventually(t, 0, "dev still reconciled", func() bool { return rec.Has(harness.Seen("dev", "later", "member-0")) })
}
