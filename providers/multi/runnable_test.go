// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package multi_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/providers/multi"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Two kubeconfig providers, which are set up with the manager rather than run, composed with AsRunnable under
// their own prefixes and controller names: each one's Secrets become clusters under its prefix, reconciled by one
// controller; nothing is engaged under an unprefixed name. Starting an adapted provider a second time fails.
func TestAsRunnableComposesManagerSetupProviders(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "multi-setup", mcenvtest.HostName, "member-0", "member-1")
	secretsNS := map[string]string{"east": ns + "-east", "west": ns + "-west"}
	harness.CreateNamespace(t, fleet, secretsNS["east"], mcenvtest.HostName)
	harness.CreateNamespace(t, fleet, secretsNS["west"], mcenvtest.HostName)
	harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0", "member-1")

	p := multi.New(multi.Options{})
	mgr := newManager(t, p)
	adapted := map[string]multicluster.Provider{}
	for _, name := range []string{"east", "west"} {
		kc := kubeconfig.New(kubeconfig.Options{Namespace: secretsNS[name], ControllerName: "kubeconfig-" + name})
		adapted[name] = multi.AsRunnable(kc, mgr)
		if err := p.AddProvider(name, adapted[name]); err != nil {
			t.Fatal(err)
		}
	}
	rec := harness.RecordConfigMaps(t, mgr, harness.OfNamespace(ns))
	harness.StartManager(t, t.Context(), mgr)

	hc := harness.Client(t, fleet, mcenvtest.HostName)
	for name, member := range map[string]string{"east": "member-0", "west": "member-1"} {
		data := harness.Kubeconfig(t, fleet, member)
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: secretsNS[name],
				Name:      "cluster-" + member,
				Labels:    map[string]string{kubeconfig.DefaultKubeconfigSecretLabel: "true"},
			},
			Data: map[string][]byte{kubeconfig.DefaultKubeconfigSecretKey: data},
		}
		if err := hc.Create(t.Context(), secret); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"east#cluster-member-0/obj=member-0", "west#cluster-member-1/obj=member-1"} {
		harness.Eventually(t, shortTimeout, want, func() bool { return rec.Has(want) })
	}
	for name := range rec.Keys() {
		if name != "east#cluster-member-0/obj=member-0" && name != "west#cluster-member-1/obj=member-1" {
			t.Errorf("reconciled %s, want only the prefixed clusters", name)
		}
	}
	if _, err := mgr.GetCluster(t.Context(), "east#cluster-member-0"); err != nil {
		t.Errorf("GetCluster(east#cluster-member-0): %v", err)
	}

	runnable, ok := adapted["east"].(multicluster.ProviderRunnable)
	if !ok {
		t.Fatalf("AsRunnable returned %T, not a ProviderRunnable", adapted["east"])
	}
	if err := runnable.Start(t.Context(), mgr); err == nil {
		t.Error("starting an adapted provider a second time succeeded")
	}
}
