// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Credentials in Secrets never reach the logs (at every verbosity, client-go's included) nor the Events: not when a
// cluster is engaged with a token or a client key, not when the kubeconfig is malformed (even with the token where
// a parse error quotes a value), not when the cluster is unreachable. TestMain checks the logs of the whole package
// run the same way.
func TestCredentialsNeverLogged(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "kc-creds", mcenvtest.HostName, "member-0")
	dumpOnFailure(t, ns)
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")

	sa, err := fleet.ServiceAccountConfig(quietContext(t), "member-0", ns, "fleet-reader")
	if err != nil {
		t.Fatal(err)
	}
	token := sa.BearerToken
	forbidden.add(credentialFragments([]byte(token))...)
	// Envtest runs no controller manager, so aggregated roles such as "view" stay empty: grant the reads directly.
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-read-configmaps"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-read-configmaps"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "fleet-reader"}},
	}
	for _, obj := range []client.Object{role, binding} {
		if err := harness.Client(t, fleet, "member-0").Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
	}

	hc := hostClient(t)
	admin := memberKubeconfig(t, "member-1")
	secrets := map[string][]byte{
		"token":             harness.TokenKubeconfig(t, sa.Host, sa.CAData, token),
		"client-key":        admin,
		"token-as-context":  []byte(fmt.Sprintf("apiVersion: v1\nkind: Config\ncurrent-context: %s\nusers:\n- name: u\n  user:\n    token: %s\n", token, token)),
		"token-unreachable": harness.TokenKubeconfig(t, closedServer(t), nil, token),
		"key-broken-yaml":   append(append([]byte{}, admin...), "\n  - [unterminated: "+token...),
		"key-unreachable":   []byte(strings.Replace(string(admin), harness.Config(t, fleet, "member-1").Host, closedServer(t), 1)),
	}
	// The Secrets exist before the provider starts, so its initial list returns them all.
	for name, data := range secrets {
		if err := hc.Create(quietContext(t), kubeconfigSecret(ns, name, data)); err != nil {
			t.Fatal(err)
		}
	}
	f := startFleetController(t, kubeconfig.Options{Namespace: ns, WaitCacheTimeout: 2 * time.Second}, ns, withOwnerIndex)

	f.waitClusters(t, "client-key", "token")
	f.waitReconciled(t, "token/obj=member-0")
	events := make([]eventsv1.Event, 0, 8)
	for name, reason := range map[string]string{
		"token-as-context":  kubeconfig.ReasonInvalidKubeconfig,
		"key-broken-yaml":   kubeconfig.ReasonInvalidKubeconfig,
		"token-unreachable": kubeconfig.ReasonEngageFailed,
		"key-unreachable":   kubeconfig.ReasonEngageFailed,
	} {
		events = append(events, waitEvent(t, ns, name, reason))
	}
	list := &eventsv1.EventList{}
	if err := hostClient(t).List(t.Context(), list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	events = append(events, list.Items...)

	for _, e := range events {
		for _, leak := range forbidden.leaks([]string{e.Note}) {
			t.Errorf("Event %s on Secret %s leaks a credential: %s", e.Reason, e.Regarding.Name, leak)
		}
	}
	for _, leak := range forbidden.leaks(logs.all()) {
		t.Errorf("log line leaks a credential: %s", leak)
	}
	for _, e := range events {
		if e.Regarding.Name == "token-as-context" {
			t.Logf("Event for a kubeconfig naming its token as context: %s", e.Note)
			break
		}
	}
}
