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
	ns := uniqueNamespace("kc-policy")
	dumpOnFailure(t, ns)
	createNamespace(t, ns, mcenvtest.HostName, "member-0")
	createConfigMap(t, "member-0", ns, "obj")
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
		if event.Type != corev1.EventTypeWarning || !strings.Contains(event.Note, ns+"/"+name) || !strings.Contains(event.Note, "KubeconfigPolicy.") {
			t.Errorf("%s: %s event %q should be a Warning naming the Secret and the option", c.Name, event.Type, event.Note)
		}
		logged := false
		for _, line := range logs.all() {
			if strings.Contains(line, ns+"/"+name) && strings.Contains(line, "not engaged") && strings.Contains(line, "KubeconfigPolicy.") {
				logged = true
				for _, field := range c.Fields {
					if !strings.Contains(line, field) || !strings.Contains(event.Note, field) {
						t.Errorf("%s: the log line %q or the event %q does not name %s", c.Name, line, event.Note, field)
					}
				}
			}
		}
		if !logged {
			t.Errorf("%s: no log line names the Secret and the refusal", c.Name)
		}
		if c.Happened != nil && c.Happened() {
			t.Errorf("%s: the kubeconfig was acted upon although refused", c.Name)
		}
	}
	if got := rec.Authorizations(); len(got) != 0 {
		t.Errorf("the server the token file's kubeconfig names received %d requests", len(got))
	}
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
	cases, _ := harness.PolicyCases(t, fleet, "member-0")
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			ns := uniqueNamespace("kc-allow-" + secretName(c))
			dumpOnFailure(t, ns)
			createNamespace(t, ns, mcenvtest.HostName, "member-0")
			createConfigMap(t, "member-0", ns, "obj")
			f := startFleetController(t, kubeconfig.Options{Namespace: ns, KubeconfigPolicy: c.Allow}, ns)
			if err := hostClient(t).Create(quietContext(t), kubeconfigSecret(ns, "c", c.Kubeconfig)); err != nil {
				t.Fatal(err)
			}
			if c.Engages {
				f.waitClusters(t, "c")
				f.waitReconciled(t, "c/obj=member-0")
			}
			if c.Happened != nil {
				harness.Eventually(t, shortTimeout, c.Name+" acted upon", c.Happened)
			}
		})
	}
}
