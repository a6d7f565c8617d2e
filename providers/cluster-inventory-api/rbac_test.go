// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusterinventoryapi_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/yaml"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	clusterinventoryapi "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/kubeconfigstrategy"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// The ClusterRole of config/rbac/role.yaml is all the provider needs on the hub. Run as a user with no other right
// (the test first checks it has none), the provider engages and reconciles a profile, and records a Warning event
// through the events API (events.k8s.io) on one it cannot reach, logging no permission error: with the
// AccessProvider strategy, and with the deprecated Secret strategy, which also reads Secrets.
func TestRBAC(t *testing.T) {
	hubConfig := rest.AnonymousClientConfig(fleet.Host())
	hubConfig.BearerToken = providerToken
	asProvider, err := client.New(hubConfig, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := asProvider.List(t.Context(), &clusterinventoryv1alpha1.ClusterProfileList{}); !apierrors.IsForbidden(err) {
		t.Fatalf("listing ClusterProfiles without the role: got %v, want forbidden", err)
	}

	data, err := os.ReadFile("config/rbac/role.yaml")
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(data, role); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: providerUser}},
	}
	for _, obj := range []client.Object{role, binding} {
		if err := hubClient(t).Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
	}
	harness.Eventually(t, 0, "the role is in effect", func() bool {
		return asProvider.List(t.Context(), &clusterinventoryv1alpha1.ClusterProfileList{}) == nil
	})

	run := func(t *testing.T, ns string, strategy kubeconfigstrategy.Option, good, bad func()) {
		logs := &logBuffer{}
		p, _, rec, _ := startWith(t, hubConfig, clusterinventoryapi.Options{
			KubeconfigStrategyOption: strategy,
			ClusterOptions:           []cluster.Option{harness.InNamespace(ns)},
			IsReady:                  readyIn(ns),
		}, logs)
		good()
		bad()
		name := multicluster.ClusterName(ns + "/prof")
		harness.Eventually(t, 0, string(name)+" reconciled on member-0", func() bool { return rec.Has(harness.Seen(name, "obj", "member-0")) })
		harness.Eventually(t, 0, "a Warning event on the profile that cannot be reached", func() bool { return len(warnings(t, ns, "bad")) > 0 })
		if got := namesIn(p, ns); !slices.Equal(got, []multicluster.ClusterName{name}) {
			t.Errorf("engaged %v, want only %s", got, name)
		}
		if out := strings.ToLower(logs.String()); strings.Contains(out, "forbidden") {
			t.Errorf("the provider was refused something:\n%s", logs.String())
		}
	}

	t.Run("access providers", func(t *testing.T) {
		ns := harness.NewNamespace(t, fleet, "cip-rbac", hub, "member-0")
		harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
		run(t, ns, accessOption(t, ""),
			func() { createProfile(t, ns, "prof", true, accessProviders(accessEntry(t, "token", "member-0"))) },
			func() { createProfile(t, ns, "bad", true, accessProviders(accessEntry(t, "gkeFleet", "member-0"))) })
	})
	t.Run("Secret strategy", func(t *testing.T) {
		ns := harness.NewNamespace(t, fleet, "cip-rbac-secret", hub, "member-0")
		harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
		run(t, ns, secretOption(),
			func() { setKubeconfigSecret(t, ns, "prof", "member-0"); createProfile(t, ns, "prof", true) },
			func() { createProfile(t, ns, "bad", true) })
	})
}

// The RBAC markers of rbac.go grant exactly what config/rbac/role.yaml grants, so that a program generating its
// RBAC from markers gets what TestRBAC proves enough.
func TestRBACMarkers(t *testing.T) {
	kind, _, rules := harness.RBACManifest(t, "config/rbac/role.yaml")
	markers, namespaced := harness.RBACMarkers(t, "rbac.go")
	if kind != "ClusterRole" || namespaced || !harness.SameRules(rules, markers) {
		t.Errorf("the markers (namespaced %t) grant %+v; the manifest (a %s) grants %+v", namespaced, markers, kind, rules)
	}
}
