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
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 2})
}

const (
	secretsNamespace = "fleet"
	secretLabel      = "example.com/kubeconfig"
	secretKey        = "config"
)

// The program, run with the namespace, label and key of its flags, finds the ConfigMaps of the cluster of every
// labelled Secret under the Secret's name, ignores Secrets without its label, forgets the cluster of a deleted
// Secret, and exits cleanly on SIGINT.
func TestFindsTheConfigMapsOfTheClustersOfLabelledSecrets(t *testing.T) {
	host := harness.Client(t, fleet, mcenvtest.HostName)
	if err := host.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: secretsNamespace}}); err != nil {
		t.Fatal(err)
	}
	for _, member := range []string{"member-0", "member-1"} {
		createConfigMap(t, member, "hello")
	}
	hostKubeconfig := filepath.Join(t.TempDir(), "host")
	if err := fleet.WriteKubeconfig(hostKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}

	p := program.Start(t, program.Build(t), []string{"KUBECONFIG=" + hostKubeconfig},
		"-namespace", secretsNamespace, "-kubeconfig-label", secretLabel, "-kubeconfig-key", secretKey)
	p.WaitFor(t, "Starting manager")

	createSecret(t, "east", "member-0", map[string]string{secretLabel: "true"})
	p.WaitFor(t, "ConfigMap found", `"cluster": "east"`, `"namespace": "default"`, `"name": "hello"`)

	// A Secret without the program's label (here: with the provider's default label) is not a cluster.
	createSecret(t, "ignored", "member-1", map[string]string{"sigs.k8s.io/multicluster-runtime-kubeconfig": "true"})
	createSecret(t, "west", "member-1", map[string]string{secretLabel: "true"})
	p.WaitFor(t, "ConfigMap found", `"cluster": "west"`, `"namespace": "default"`, `"name": "hello"`)
	if lines := p.Lines(`"cluster": "ignored"`); len(lines) > 0 {
		t.Errorf("the Secret without the label became a cluster:\n%v", lines)
	}

	// The cluster of a deleted Secret leaves the fleet: its new ConfigMaps are not reconciled any more.
	if err := host.Delete(t.Context(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secretsNamespace, Name: "east"}}); err != nil {
		t.Fatal(err)
	}
	p.WaitFor(t, "Disengaging cluster", `"cluster": "east"`)
	createConfigMap(t, "member-0", "after")
	createConfigMap(t, "member-1", "after")
	p.WaitFor(t, "ConfigMap found", `"cluster": "west"`, `"name": "after"`)

	// Reconciles still running at SIGINT may fail with the cancelled context: only errors before it count.
	if errs := p.Lines("Reconciler error"); len(errs) > 0 {
		t.Errorf("reconciles failed:\n%v", errs)
	}
	p.Interrupt(t)
	if lines := p.Lines(`"cluster": "east"`, `"name": "after"`); len(lines) > 0 {
		t.Errorf("a ConfigMap of the cluster of the deleted Secret was reconciled:\n%v", lines)
	}
}

func createConfigMap(t *testing.T, member, name string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	if err := harness.Client(t, fleet, member).Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
}

// createSecret stores the kubeconfig of member in the Secret name of the host, under the program's key.
func createSecret(t *testing.T, name, member string, labels map[string]string) {
	t.Helper()
	data, err := fleet.Kubeconfig(member)
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: secretsNamespace, Name: name, Labels: labels},
		Data:       map[string][]byte{secretKey: data},
	}
	if err := harness.Client(t, fleet, mcenvtest.HostName).Create(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
}
