// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespace_test

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/providers/namespace"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// The ClusterRole of config/rbac/role.yaml (the same rules as the markers of rbac.go) is all the provider needs on
// the host: with a shared cluster that authenticates as a ServiceAccount bound to exactly that ClusterRole, a new
// Namespace is engaged as a virtual cluster.
func TestRBAC(t *testing.T) {
	ns := harness.UniqueName("rbac")
	cfg := harness.ServiceAccountWithRole(t, fleet, ns, "fleet-controller", "config/rbac/role.yaml", "rbac.go")
	shared, err := cluster.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	harness.RunCluster(t, shared)
	rec := newEngageRecorder()
	startProvider(t, namespace.New(shared), rec)
	harness.Eventually(t, 0, ns+" engaged", func() bool { return rec.isEngaged(ns) })
	created := harness.UniqueName("rbac-new")
	harness.CreateNamespaces(t, hostClient(t), created)
	harness.Eventually(t, 0, created+" engaged", func() bool { return rec.isEngaged(created) })
}
