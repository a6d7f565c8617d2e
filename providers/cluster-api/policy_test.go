// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package capi_test

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	capi "sigs.k8s.io/multicluster-runtime/providers/cluster-api"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// caseName is an object name for a policy case.
func caseName(c harness.PolicyCase) string {
	return strings.ReplaceAll(strings.ToLower(c.Name), " ", "-")
}

// warningsAbout returns the notes of the Warning Events on the object ns/name.
func warningsAbout(t testing.TB, ns, name string) []string {
	t.Helper()
	var events corev1.EventList
	if err := hostClient(t).List(t.Context(), &events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range events.Items {
		if e.Type == corev1.EventTypeWarning && e.InvolvedObject.Name == name {
			out = append(out, e.Message)
		}
	}
	return out
}

// With the default options, the kubeconfig Secret of a Cluster that would run a plugin, read a file of the
// controller, use an auth-provider or skip TLS verification is refused before anything of it happens (the plugin
// leaves no file, the server the token file's kubeconfig names receives no request); a Warning Event on the
// Cluster and a log line name the cluster, the refused fields and the option that allows them; a good Cluster
// beside them is engaged, and fixing a refused Secret engages its Cluster.
func TestKubeconfigPolicyRefusesByDefault(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "capi-policy", mcHost, "member-0")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	cases, rec := harness.PolicyCases(t, fleet, "member-0")
	logs := &harness.LogBuffer{}
	p, _, seenBy, _ := start(t, capi.Options{ClusterOptions: []cluster.Option{harness.InNamespace(ns)}}, logs)
	// The Secret first: the note of a series of Events stays its first one's.
	for _, c := range cases {
		setKubeconfig(t, ns, caseName(c), "", c.Kubeconfig...)
		createCluster(t, ns, caseName(c), true)
	}
	createCluster(t, ns, "good", true)
	setKubeconfig(t, ns, "good", "member-0")
	good := multicluster.ClusterName(ns + "/good")
	harness.Eventually(t, 0, "good reconciled", func() bool { return seenBy.Has(harness.Seen(good, "obj", "member-0")) })

	harness.CheckAllRefused(t, cases, rec, func(c harness.PolicyCase) (string, func() []string) {
		return ns + "/" + caseName(c), func() []string { return warningsAbout(t, ns, caseName(c)) }
	}, logs.Find, func() []multicluster.ClusterName { return namesIn(p, ns) }, good)

	setKubeconfig(t, ns, "exec", "member-0")
	fixed := multicluster.ClusterName(ns + "/exec")
	harness.Eventually(t, 0, "the fixed Cluster reconciled", func() bool { return seenBy.Has(harness.Seen(fixed, "obj", "member-0")) })
}

// With the option that allows it, each kubeconfig works: the plugin runs and its cluster is engaged, the token
// file's content is sent, the files are read, the auth-provider is used, the unverified member is reached.
func TestKubeconfigPolicyOptIn(t *testing.T) {
	harness.CheckPolicyOptIns(t, fleet, "member-0", func(t *testing.T, c harness.PolicyCase) func() bool {
		ns := harness.NewNamespace(t, fleet, "capi-allow", mcHost, "member-0")
		harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
		p, _, seenBy, _ := start(t, capi.Options{ClusterOptions: []cluster.Option{harness.InNamespace(ns)}, KubeconfigPolicy: c.Allow})
		setKubeconfig(t, ns, "c", "", c.Kubeconfig...)
		createCluster(t, ns, "c", true)
		name := multicluster.ClusterName(ns + "/c")
		return func() bool {
			return seenBy.Has(harness.Seen(name, "obj", "member-0")) && slices.Contains(p.ListClusters(), name)
		}
	})
}
