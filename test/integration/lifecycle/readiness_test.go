// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package lifecycle

import (
	"context"
	"strings"
	"testing"
	"time"

	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// The fleet readiness check fails, naming the cluster, while a cluster's sources have not synced (here: its API
// server is down), does not name the healthy clusters, and passes once the cluster is back and synced. A cluster
// that joins later makes it fail again until it has synced.
//
// Without the per-cluster sync bookkeeping in the controller the check either always passes (nothing unsynced is
// reported) or never does (a synced source is never counted as synced).
func TestFleetReadyzCheck(t *testing.T) {
	const ns = "lc-readiness"
	for _, member := range []string{"member-0", "member-1"} {
		ensureNamespace(t, member, ns)
		createConfigMap(t, member, ns, "obj")
	}
	t.Cleanup(func() {
		if err := fleet.RestartMemberAPIServer(context.WithoutCancel(t.Context()), "member-1"); err != nil {
			t.Errorf("restarting member-1: %v", err)
		}
	})

	p := newTestProvider()
	mgr := newManager(t, p)
	check := mcmanager.FleetReadyzCheck(mgr)
	ready := func() error { return check(nil) }
	rec := harness.NewRecorder()
	log := &eventLog{}
	ctrl, err := mccontroller.New("readiness", mgr, mccontroller.Options{
		Reconciler:       recordingReconciler(rec),
		CacheSyncTimeout: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.MultiClusterWatch(log.configMapSource()); err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)
	harness.Eventually(t, 0, "ready with no clusters", func() bool { return ready() == nil })

	if err := fleet.StopMemberAPIServer("member-1"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, member string }{{"healthy", "member-0"}, {"down", "member-1"}} {
		cl := memberCluster(t, c.member, ns, c.name)
		if err := waitFor(t, shortWait, "adding "+c.name, func() error { return p.Add(t.Context(), multicluster.ClusterName(c.name), cl, mgr) }); err != nil {
			t.Fatalf("adding %s: %v", c.name, err)
		}
	}
	harness.Eventually(t, 0, "healthy reconciled", func() bool { return rec.Has("healthy/obj") })
	onlyDownUnsynced := func() bool {
		err := ready()
		return err != nil && strings.Contains(err.Error(), "down") && !strings.Contains(err.Error(), "healthy")
	}
	harness.Eventually(t, 0, "healthy synced, down not", onlyDownUnsynced)
	harness.Consistently(t, quietPeriod, "not ready while member-1 is down, naming only the down cluster", onlyDownUnsynced)
	if err := ready(); err != nil {
		t.Logf("readiness while member-1 is down: %v", err)
	}

	if err := fleet.RestartMemberAPIServer(t.Context(), "member-1"); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "ready once member-1 is back", func() bool { return ready() == nil })
	if !rec.Has("down/obj") {
		harness.Eventually(t, 0, "down reconciled", func() bool { return rec.Has("down/obj") })
	}

	// A cluster that joins later is synced before the check passes again; a standby manager's controllers would
	// report nothing, which the unit tests of the controller cover.
	late := memberCluster(t, "member-0", ns, "late")
	if err := p.Add(t.Context(), "late", late, mgr); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "late reconciled and ready again", func() bool { return rec.Has("late/obj") && ready() == nil })
}
