// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/envtest/program"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 1})
}

// The program reconciles a ConfigMap of the member whose kubeconfig Secret (as the script writes it) is in the
// host, under the Secret's name; a Secret created while it runs joins the fleet.
func TestReconcilesClustersOfKubeconfigSecrets(t *testing.T) {
	host := harness.Client(t, fleet, mcenvtest.HostName)
	if err := host.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "fleet"}}); err != nil {
		t.Fatal(err)
	}
	if err := harness.Client(t, fleet, "member-0").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "hello"}}); err != nil {
		t.Fatal(err)
	}
	hostKubeconfig := filepath.Join(t.TempDir(), "host")
	if err := fleet.WriteKubeconfig(hostKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}

	p := program.Start(t, program.Build(t), []string{"KUBECONFIG=" + hostKubeconfig}, "-namespace", "fleet")
	data, err := fleet.Kubeconfig("member-0")
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "east", Labels: map[string]string{kubeconfig.DefaultKubeconfigSecretLabel: "true"}},
		Data:       map[string][]byte{kubeconfig.DefaultKubeconfigSecretKey: data},
	}
	if err := host.Create(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	p.WaitFor(t, `ConfigMap default/hello in cluster "east"`)
	p.Interrupt(t)
}
