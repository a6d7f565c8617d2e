// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package capi_test

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	capi "sigs.k8s.io/multicluster-runtime/providers/cluster-api"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// The ClusterRole of config/rbac/role.yaml (the same rules as the markers of rbac.go) is all the provider needs on
// the host. Run as a ServiceAccount bound to exactly that ClusterRole, the provider engages and reconciles a
// Cluster and records a Warning Event on one whose kubeconfig it refuses, and nothing it does is forbidden.
func TestRBAC(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "capi-rbac", mcHost, "member-0")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	cfg := harness.ServiceAccountWithRole(t, fleet, ns, "fleet-controller", "config/rbac/role.yaml", "rbac.go")
	logs := &harness.LogBuffer{}
	p, _, seenBy, _ := startAs(t, cfg, capi.Options{ClusterOptions: []cluster.Option{harness.InNamespace(ns)}}, logs)

	cases, _ := harness.PolicyCases(t, fleet, "member-0")
	setKubeconfig(t, ns, "refused", "", cases[0].Kubeconfig...)
	createCluster(t, ns, "refused", true)
	setKubeconfig(t, ns, "wl", "member-0")
	createCluster(t, ns, "wl", true)
	name := multicluster.ClusterName(ns + "/wl")
	harness.Eventually(t, 0, string(name)+" reconciled", func() bool { return seenBy.Has(harness.Seen(name, "obj", "member-0")) })
	if got := namesIn(p, ns); !slices.Equal(got, []multicluster.ClusterName{name}) {
		t.Errorf("engaged %v, want only %s", got, name)
	}
	harness.Eventually(t, 0, "a Warning Event on the refused Cluster", func() bool {
		for _, note := range warningsAbout(t, ns, "refused") {
			if strings.Contains(note, "KubeconfigPolicy.") {
				return true
			}
		}
		return false
	})
	if line := logs.Find("orbidden"); line != "" {
		t.Errorf("the provider was refused something: %s", line)
	}
}
