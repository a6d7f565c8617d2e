// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/multicluster-runtime/examples/argocd"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/envtest/program"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 1})
}

// The program logs the ConfigMaps of the cluster of an Argo CD cluster Secret created while it runs, under the
// Secret's name, and says which Secret it cannot read.
func TestLogsConfigMapsOfArgoCDClusters(t *testing.T) {
	host := harness.Client(t, fleet, mcenvtest.HostName)
	if err := host.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "argocd"}}); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "hello"}}
	if err := harness.Client(t, fleet, "member-0").Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	hostKubeconfig := filepath.Join(t.TempDir(), "host.kubeconfig")
	if err := fleet.WriteKubeconfig(hostKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	p := program.Start(t, program.Build(t), []string{"KUBECONFIG=" + hostKubeconfig})

	secret, err := argocd.ClusterSecret("argocd", "in-cluster-east", harness.Config(t, fleet, "member-0"))
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Create(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	p.WaitFor(t, "ConfigMap found", `"cluster": "in-cluster-east"`, `"name": "hello"`)

	secret.Name, secret.ResourceVersion, secret.Data = "broken", "", map[string][]byte{"server": []byte("https://127.0.0.1:1")}
	if err := host.Create(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	p.WaitFor(t, "Cannot read the cluster Secret", `"cluster": "broken"`)
	p.Interrupt(t)
}
