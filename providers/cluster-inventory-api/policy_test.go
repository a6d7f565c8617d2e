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
	ns := newNamespace(t, "cip-policy", hub, "member-0")
	createConfigMap(t, "member-0", ns, "obj")
	cases, rec := harness.PolicyCases(t, fleet, "member-0")
	logs := &logBuffer{}
	p, _, seenBy, _ := start(t, clusterinventoryapi.Options{
		KubeconfigStrategyOption: secretOption(),
		ClusterOptions:           []cluster.Option{inNamespace(ns)},
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
	harness.Eventually(t, 0, "good reconciled", func() bool { return seenBy.Has(seen(good, "obj", "member-0")) })

	for _, c := range cases {
		name := profileName(c)
		harness.Eventually(t, 0, "a Warning event on "+ns+"/"+name, hasWarning(t, ns, name, append([]string{"KubeconfigPolicy."}, c.Fields...)...))
		logged := false
		for _, line := range strings.Split(logs.String(), "\n") {
			logged = logged || containsAll(line, append([]string{ns + "/" + name, "KubeconfigPolicy."}, c.Fields...)...)
		}
		if !logged {
			t.Errorf("%s: no log line names the profile, the refused fields and the option", c.Name)
		}
		if c.Happened != nil && c.Happened() {
			t.Errorf("%s: the kubeconfig was acted upon although refused", c.Name)
		}
	}
	if got := rec.Authorizations(); len(got) != 0 {
		t.Errorf("the server the token file's kubeconfig names received %d requests", len(got))
	}
	if got := namesIn(p, ns); !slices.Equal(got, []multicluster.ClusterName{good}) {
		t.Errorf("engaged %v, want only %s", got, good)
	}

	setKubeconfigSecret(t, ns, "exec", "member-0")
	fixed := multicluster.ClusterName(ns + "/exec")
	harness.Eventually(t, 0, "the fixed profile reconciled", func() bool { return seenBy.Has(seen(fixed, "obj", "member-0")) })
}

// With the option that allows it, each kubeconfig works: the plugin runs and its cluster is engaged, the token
// file's content is sent, the files are read, the auth-provider is used, the unverified member is reached.
func TestSecretStrategyPolicyOptIn(t *testing.T) {
	cases, _ := harness.PolicyCases(t, fleet, "member-0")
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			ns := newNamespace(t, "cip-allow", hub, "member-0")
			createConfigMap(t, "member-0", ns, "obj")
			_, _, seenBy, _ := start(t, clusterinventoryapi.Options{
				KubeconfigStrategyOption: secretOptionWith(c.Allow),
				ClusterOptions:           []cluster.Option{inNamespace(ns)},
				IsReady:                  readyIn(ns),
			})
			setKubeconfigSecretData(t, ns, "prof", c.Kubeconfig)
			createProfile(t, ns, "prof", true)
			if c.Engages {
				name := multicluster.ClusterName(ns + "/prof")
				harness.Eventually(t, 0, string(name)+" reconciled", func() bool { return seenBy.Has(seen(name, "obj", "member-0")) })
			}
			if c.Happened != nil {
				harness.Eventually(t, 0, c.Name+" acted upon", c.Happened)
			}
		})
	}
}
