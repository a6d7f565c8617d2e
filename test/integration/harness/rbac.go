// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package harness

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
)

// roleKind is the kind of a namespaced RBAC role.
const roleKind = "Role"

// RBACManifest reads the Role or ClusterRole of an RBAC manifest file (one object, YAML).
func RBACManifest(t testing.TB, path string) (kind, name string, rules []rbacv1.PolicyRule) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var role struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        metav1.ObjectMeta   `json:"metadata"`
		Rules           []rbacv1.PolicyRule `json:"rules"`
	}
	if err := yaml.UnmarshalStrict(data, &role); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if role.Kind != roleKind && role.Kind != "ClusterRole" {
		t.Fatalf("%s holds a %s, want a Role or a ClusterRole", path, role.Kind)
	}
	return role.Kind, role.Metadata.Name, role.Rules
}

// RBACMarkers parses the kubebuilder RBAC markers (// +kubebuilder:rbac:groups=...,resources=...,verbs=...) of a
// Go source file, as controller-gen reads them: namespaced is true if every marker names a namespace.
func RBACMarkers(t testing.TB, path string) (rules []rbacv1.PolicyRule, namespaced bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	namespaced = true
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		marker, ok := strings.CutPrefix(strings.TrimSpace(scanner.Text()), "// +kubebuilder:rbac:")
		if !ok {
			continue
		}
		var rule rbacv1.PolicyRule
		hasNamespace := false
		for _, field := range strings.Split(marker, ",") {
			key, value, _ := strings.Cut(field, "=")
			values := strings.Split(strings.Trim(value, `"`), ";")
			switch key {
			case "groups":
				rule.APIGroups = values
			case "resources":
				rule.Resources = values
			case "verbs":
				rule.Verbs = values
			case "namespace":
				hasNamespace = true
			default:
				t.Fatalf("%s: unknown field %q in marker %q", path, key, marker)
			}
		}
		namespaced = namespaced && hasNamespace
		rules = append(rules, rule)
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rules) == 0 {
		t.Fatalf("%s has no RBAC markers", path)
	}
	return rules, namespaced
}

// SameRules reports whether two lists of rules grant the same: the same rules, each compared as sets of groups,
// resources and verbs, in any order.
func SameRules(a, b []rbacv1.PolicyRule) bool {
	key := func(r rbacv1.PolicyRule) string {
		parts := make([]string, 0, 3)
		for _, list := range [][]string{r.APIGroups, r.Resources, r.Verbs} {
			sorted := slices.Sorted(slices.Values(list))
			parts = append(parts, strings.Join(sorted, ";"))
		}
		return strings.Join(parts, "|")
	}
	keys := func(rules []rbacv1.PolicyRule) []string {
		out := make([]string, 0, len(rules))
		for _, r := range rules {
			out = append(out, key(r))
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(keys(a), keys(b))
}

// ServiceAccountWithRole checks that the RBAC markers of markers declare exactly the rules of the manifest and
// returns a config of the host that authenticates as a new ServiceAccount namespace/name bound to those rules and
// to nothing else: a Role of the manifest is created in namespace, a ClusterRole under a name made unique with the
// namespace. It returns once the binding is in effect.
func ServiceAccountWithRole(t testing.TB, fleet *mcenvtest.Fleet, namespace, name, manifest, markers string) *rest.Config {
	t.Helper()
	kind, roleName, rules := RBACManifest(t, manifest)
	markerRules, namespaced := RBACMarkers(t, markers)
	if !SameRules(rules, markerRules) || namespaced != (kind == roleKind) {
		t.Fatalf("the RBAC markers of %s (namespaced %t) grant %+v; %s (a %s) grants %+v", markers, namespaced, markerRules, manifest, kind, rules)
	}
	cfg, err := fleet.ServiceAccountConfig(t.Context(), mcenvtest.HostName, namespace, name)
	if err != nil {
		t.Fatal(err)
	}
	admin := Client(t, fleet, mcenvtest.HostName)
	subject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}
	var objs []client.Object
	if kind == roleKind {
		meta := metav1.ObjectMeta{Namespace: namespace, Name: roleName}
		objs = append(objs, &rbacv1.Role{ObjectMeta: meta, Rules: rules}, &rbacv1.RoleBinding{ObjectMeta: meta,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: roleName}, Subjects: []rbacv1.Subject{subject}})
	} else {
		meta := metav1.ObjectMeta{Name: roleName + "-" + namespace}
		objs = append(objs, &rbacv1.ClusterRole{ObjectMeta: meta, Rules: rules}, &rbacv1.ClusterRoleBinding{ObjectMeta: meta,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: meta.Name}, Subjects: []rbacv1.Subject{subject}})
	}
	for _, obj := range objs {
		if err := admin.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
	}
	asAccount, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := rules[0]
	Eventually(t, 0, "the binding of "+manifest+" in effect", func() bool {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: namespace, Group: first.APIGroups[0], Resource: first.Resources[0], Verb: first.Verbs[0],
			},
		}}
		return asAccount.Create(t.Context(), review) == nil && review.Status.Allowed
	})
	return cfg
}

// ServiceAccountWithoutRights returns a config of the host that authenticates as a new ServiceAccount
// namespace/name bound to no role at all, after checking that it cannot even list the ConfigMaps of its own
// namespace: for providers that need nothing on the host.
func ServiceAccountWithoutRights(t testing.TB, fleet *mcenvtest.Fleet, namespace, name string) *rest.Config {
	t.Helper()
	cfg, err := fleet.ServiceAccountConfig(t.Context(), mcenvtest.HostName, namespace, name)
	if err != nil {
		t.Fatal(err)
	}
	asAccount, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := asAccount.List(t.Context(), &corev1.ConfigMapList{}, client.InNamespace(namespace)); !apierrors.IsForbidden(err) {
		t.Fatalf("the ServiceAccount has rights: listing the ConfigMaps of its own namespace got %v, want forbidden", err)
	}
	return cfg
}
