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
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 2})
}

const secretsNamespace = "fleet"

// The program's registry holds exactly the engaged clusters: it lists each cluster of a labelled Secret once it is
// engaged, reports them periodically with their API servers, drops the cluster of a deleted Secret, and the
// program exits cleanly on SIGINT.
func TestRegistryFollowsTheEngagedClusters(t *testing.T) {
	host := harness.Client(t, fleet, mcenvtest.HostName)
	if err := host.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: secretsNamespace}}); err != nil {
		t.Fatal(err)
	}
	hostKubeconfig := filepath.Join(t.TempDir(), "host")
	if err := fleet.WriteKubeconfig(hostKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}

	p := program.Start(t, program.Build(t), []string{"KUBECONFIG=" + hostKubeconfig},
		"-namespace", secretsNamespace, "-interval", "500ms")
	p.WaitFor(t, "Registered clusters", `"count": 0`)

	createSecret(t, "east", "member-0")
	p.WaitFor(t, "Cluster engaged", `"cluster": "east"`, `"clusters": ["east"]`)
	createSecret(t, "west", "member-1")
	p.WaitFor(t, "Cluster engaged", `"cluster": "west"`, `"clusters": ["east","west"]`)

	// The periodic report lists both, each with its own API server.
	p.WaitFor(t, "Registered clusters", `"count": 2`, `"clusters": ["east","west"]`)
	for name, member := range map[string]string{"east": "member-0", "west": "member-1"} {
		p.WaitFor(t, "Registered cluster", `"cluster": "`+name+`"`, `"host": "`+harness.Config(t, fleet, member).Host+`"`)
	}

	if err := host.Delete(t.Context(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secretsNamespace, Name: "east"}}); err != nil {
		t.Fatal(err)
	}
	p.WaitFor(t, "Cluster disengaged", `"cluster": "east"`, `"clusters": ["west"]`)
	p.WaitFor(t, "Registered clusters", `"count": 1`, `"clusters": ["west"]`)

	p.Interrupt(t)
}

// createSecret stores the kubeconfig of member in the Secret name of the host, with the provider's default label
// and key.
func createSecret(t *testing.T, name, member string) {
	t.Helper()
	data, err := fleet.Kubeconfig(member)
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: secretsNamespace, Name: name, Labels: map[string]string{kubeconfig.DefaultKubeconfigSecretLabel: "true"}},
		Data:       map[string][]byte{kubeconfig.DefaultKubeconfigSecretKey: data},
	}
	if err := harness.Client(t, fleet, mcenvtest.HostName).Create(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
}
