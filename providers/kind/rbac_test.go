// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kind_test

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/providers/kind"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// The provider needs no right on the host: it asks the container runtime for kind's clusters. A manager that
// authenticates to the host as a ServiceAccount with no role at all runs it, and its cluster is engaged and
// reconciled.
func TestNoRightsOnTheHost(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "kind-rbac", "member-0")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	cfg := harness.ServiceAccountWithoutRights(t, fleet, ns, "fleet-controller")

	lister := newFakeLister()
	lister.set(t, "dev", "member-0")
	p := kind.New(kind.Options{Lister: lister, PollInterval: fastPoll, ClusterOptions: []cluster.Option{harness.InNamespace(ns)}})
	_, rec, _ := harness.StartRecordingManager(t, cfg, p, nil)
	harness.Eventually(t, 0, "dev reconciled", func() bool { return rec.Has(harness.Seen("dev", "obj", "member-0")) })
}
