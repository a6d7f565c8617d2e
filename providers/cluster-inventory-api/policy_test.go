// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusterinventoryapi_test

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	clusterinventoryapi "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/kubeconfigstrategy"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// profileName is a ClusterProfile name for a policy case.
func profileName(c harness.PolicyCase) string {
	return strings.ReplaceAll(strings.ToLower(c.Name), " ", "-")
}

// secretOptionWith is secretOption with a kubeconfig policy.
func secretOptionWith(policy clusters.KubeconfigPolicy) kubeconfigstrategy.Option {
	opt := secretOption()
	opt.Secret.KubeconfigPolicy = policy //nolint:staticcheck // the deprecated strategy under test
	return opt
}

// With the default options of the Secret strategy, a profile whose kubeconfig Secret would run a plugin, read a
// file of the controller, use an auth-provider or skip TLS verification is refused before anything of it happens
// (the plugin leaves no file, the server the token file's kubeconfig names receives no request); a Warning Event
// on the ClusterProfile and a log line name the profile, the refused fields and the option that allows them; a
// good profile beside them is engaged, and fixing a refused Secret engages its profile.
func TestSecretStrategyPolicyRefusesByDefault(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "cip-policy", hub, "member-0")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	cases, rec := harness.PolicyCases(t, fleet, "member-0")
	logs := &logBuffer{}
	p, _, seenBy, _ := start(t, clusterinventoryapi.Options{
		KubeconfigStrategyOption: secretOption(),
		ClusterOptions:           []cluster.Option{harness.InNamespace(ns)},
		IsReady:                  readyIn(ns),
	}, logs)
	// The Secret first: the note of a series of Events stays its first one's.
	for _, c := range cases {
		setKubeconfigSecretData(t, ns, profileName(c), c.Kubeconfig)
		createProfile(t, ns, profileName(c), true)
	}
	setKubeconfigSecret(t, ns, "good", "member-0")
	createProfile(t, ns, "good", true)
	good := multicluster.ClusterName(ns + "/good")
	harness.Eventually(t, 0, "good reconciled", func() bool { return seenBy.Has(harness.Seen(good, "obj", "member-0")) })

	harness.CheckAllRefused(t, cases, rec, func(c harness.PolicyCase) (string, func() []string) {
		return ns + "/" + profileName(c), func() []string { return warnings(t, ns, profileName(c)) }
	}, logs.Find, func() []multicluster.ClusterName { return namesIn(p, ns) }, good)

	setKubeconfigSecret(t, ns, "exec", "member-0")
	fixed := multicluster.ClusterName(ns + "/exec")
	harness.Eventually(t, 0, "the fixed profile reconciled", func() bool { return seenBy.Has(harness.Seen(fixed, "obj", "member-0")) })
}

// With the option that allows it, each kubeconfig works: the plugin runs and its cluster is engaged, the token
// file's content is sent, the files are read, the auth-provider is used, the unverified member is reached.
func TestSecretStrategyPolicyOptIn(t *testing.T) {
	harness.CheckPolicyOptIns(t, fleet, "member-0", func(t *testing.T, c harness.PolicyCase) func() bool {
		ns := harness.NewNamespace(t, fleet, "cip-allow", hub, "member-0")
		harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
		p, _, seenBy, _ := start(t, clusterinventoryapi.Options{
			KubeconfigStrategyOption: secretOptionWith(c.Allow),
			ClusterOptions:           []cluster.Option{harness.InNamespace(ns)},
			IsReady:                  readyIn(ns),
		})
		setKubeconfigSecretData(t, ns, "prof", c.Kubeconfig)
		createProfile(t, ns, "prof", true)
		name := multicluster.ClusterName(ns + "/prof")
		return func() bool {
			return seenBy.Has(harness.Seen(name, "obj", "member-0")) && slices.Contains(namesIn(p, ns), name)
		}
	})
}
