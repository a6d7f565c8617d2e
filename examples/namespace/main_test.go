// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/envtest/program"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{})
}

// The program, run against one real cluster with two team namespaces, reconciles each namespace's app-config as
// "default/app-config" in the cluster named after the namespace, writes app-config-seen into the real namespace,
// and exits cleanly on SIGINT.
func TestReconcilesEveryNamespaceAsACluster(t *testing.T) {
	c := harness.Client(t, fleet, mcenvtest.HostName)
	teams := []string{"team-a", "team-b"}
	for _, team := range teams {
		if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: team}}); err != nil {
			t.Fatal(err)
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: team, Name: "app-config"}, Data: map[string]string{"team": team}}
		if err := c.Create(t.Context(), cm); err != nil {
			t.Fatal(err)
		}
	}

	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := fleet.WriteKubeconfig(kubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	p := program.Start(t, program.Build(t), []string{"KUBECONFIG=" + kubeconfig})

	for _, team := range teams {
		harness.Eventually(t, 0, team+"/app-config-seen written", func() bool {
			return c.Get(t.Context(), client.ObjectKey{Namespace: team, Name: "app-config-seen"}, &corev1.ConfigMap{}) == nil
		})
		p.WaitFor(t, `ConfigMap default/app-config in cluster "`+team+`"`)
	}

	p.Interrupt(t)
}
