// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// The Role of config/rbac/role.yaml (the same rules as the markers of rbac.go) is all the provider needs on the
// host, in its namespace only. Run as a ServiceAccount bound to exactly that Role, which cannot read Secrets of
// any other namespace, the provider engages and reconciles a cluster and records a Warning Event on a refused
// Secret, and nothing it does is forbidden.
func TestRBAC(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "kc-rbac", mcenvtest.HostName, "member-0")
	dumpOnFailure(t, ns)
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	cfg := harness.ServiceAccountWithRole(t, fleet, ns, "fleet-controller", "config/rbac/role.yaml", "rbac.go")

	asController, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range []string{"default", "kube-system"} {
		if err := asController.List(t.Context(), &corev1.SecretList{}, client.InNamespace(other)); !apierrors.IsForbidden(err) {
			t.Errorf("listing the Secrets of namespace %s: got %v, want forbidden", other, err)
		}
	}

	f := startFleetControllerAs(t, cfg, kubeconfig.Options{Namespace: ns}, ns)
	hc := hostClient(t)
	if err := hc.Create(quietContext(t), kubeconfigSecret(ns, "c", memberKubeconfig(t, "member-0"))); err != nil {
		t.Fatal(err)
	}
	cases, _ := harness.PolicyCases(t, fleet, "member-0")
	if err := hc.Create(quietContext(t), kubeconfigSecret(ns, "refused", cases[0].Kubeconfig)); err != nil {
		t.Fatal(err)
	}
	f.waitClusters(t, "c")
	f.waitReconciled(t, "c/obj=member-0")
	waitEvent(t, ns, "c", kubeconfig.ReasonEngaged)
	waitEvent(t, ns, "refused", kubeconfig.ReasonInvalidKubeconfig)
	for _, line := range logs.all() {
		if strings.Contains(line, ns) && strings.Contains(strings.ToLower(line), "forbidden") {
			t.Errorf("the provider was refused something: %s", line)
		}
	}
}
