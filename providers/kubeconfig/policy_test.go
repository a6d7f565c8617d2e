// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// secretName is a Secret name for a policy case.
func secretName(c harness.PolicyCase) string {
	return strings.ReplaceAll(strings.ToLower(c.Name), " ", "-")
}

// With the default options, each kubeconfig that would run a plugin, read a file of the controller, use an
// auth-provider or skip TLS verification is refused before anything of it happens: the plugin leaves no file, the
// token file's content reaches no server (the server it names receives no request at all). Each refused Secret has
// a Warning Event and a log line naming the Secret, the refused fields and the option that allows them; a good
// Secret beside them is engaged, and fixing a refused Secret engages it.
func TestKubeconfigPolicyRefusesByDefault(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "kc-policy", mcenvtest.HostName, "member-0")
	dumpOnFailure(t, ns)
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	cases, rec := harness.PolicyCases(t, fleet, "member-0")
	f := startFleetController(t, kubeconfig.Options{Namespace: ns}, ns)
	hc := hostClient(t)
	for _, c := range cases {
		if err := hc.Create(quietContext(t), kubeconfigSecret(ns, secretName(c), c.Kubeconfig)); err != nil {
			t.Fatal(err)
		}
	}
	if err := hc.Create(quietContext(t), kubeconfigSecret(ns, "good", memberKubeconfig(t, "member-0"))); err != nil {
		t.Fatal(err)
	}
	f.waitClusters(t, "good")
	f.waitReconciled(t, "good/obj=member-0")

	for _, c := range cases {
		name := secretName(c)
		event := waitEvent(t, ns, name, kubeconfig.ReasonInvalidKubeconfig)
		if event.Type != corev1.EventTypeWarning {
			t.Errorf("%s: a %s event, want a Warning", c.Name, event.Type)
		}
		var line string
		for _, l := range logs.all() {
			if line == "" && strings.Contains(l, ns+"/"+name) && strings.Contains(l, "not engaged") {
				line = l
			}
		}
		c.CheckRefused(t, ns+"/"+name, event.Note, line)
	}
	rec.CheckUntouched(t)
	f.waitClusters(t, "good")

	update(t, ns, "exec", func(s *corev1.Secret) {
		s.Data[kubeconfig.DefaultKubeconfigSecretKey] = memberKubeconfig(t, "member-0")
	})
	f.waitClusters(t, "exec", "good")
	f.waitReconciled(t, "exec/obj=member-0")
}

// With the option that allows it, each kubeconfig works: the plugin runs and its cluster is engaged, the token
// file's content is sent, the files are read, the auth-provider is used, the unverified member is reached.
func TestKubeconfigPolicyOptIn(t *testing.T) {
	harness.CheckPolicyOptIns(t, fleet, "member-0", func(t *testing.T, c harness.PolicyCase) func() bool {
		ns := harness.NewNamespace(t, fleet, "kc-allow-"+secretName(c), mcenvtest.HostName, "member-0")
		dumpOnFailure(t, ns)
		harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
		f := startFleetController(t, kubeconfig.Options{Namespace: ns, KubeconfigPolicy: c.Allow}, ns)
		if err := hostClient(t).Create(quietContext(t), kubeconfigSecret(ns, "c", c.Kubeconfig)); err != nil {
			t.Fatal(err)
		}
		return func() bool { return f.rec.Has("c/obj=member-0") }
	})
}
