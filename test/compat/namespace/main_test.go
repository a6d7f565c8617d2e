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
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{})
}

// The program, run against one real cluster, finds the ConfigMaps of every namespace as "default/<name>" in the
// cluster named after the namespace, including a namespace created while it runs, never fails a reconcile, and
// exits cleanly on SIGINT.
func TestFindsTheConfigMapsOfEveryNamespaceAsACluster(t *testing.T) {
	c := harness.Client(t, fleet, mcenvtest.HostName)
	createNamespaceWithConfigMap := func(team string) {
		t.Helper()
		if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: team}}); err != nil {
			t.Fatal(err)
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: team, Name: "app-config"}, Data: map[string]string{"team": team}}
		if err := c.Create(t.Context(), cm); err != nil {
			t.Fatal(err)
		}
	}
	createNamespaceWithConfigMap("team-a")
	createNamespaceWithConfigMap("team-b")

	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := fleet.WriteKubeconfig(kubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	p := program.Start(t, program.Build(t), []string{"KUBECONFIG=" + kubeconfig})

	for _, team := range []string{"team-a", "team-b"} {
		p.WaitFor(t, "ConfigMap found", `"cluster": "`+team+`"`, `"namespace": "default"`, `"name": "app-config"`)
	}

	// A namespace that appears later is a new cluster of the fleet.
	createNamespaceWithConfigMap("team-c")
	p.WaitFor(t, "ConfigMap found", `"cluster": "team-c"`, `"namespace": "default"`, `"name": "app-config"`)

	// A deleted ConfigMap is reconciled as not found, which is not an error.
	reconcilingTeamA := []string{"Reconciling ConfigMap", `"cluster": "team-a"`, `"configmap": {"name":"app-config","namespace":"default"}`}
	before := len(p.Lines(reconcilingTeamA...))
	if err := c.Delete(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "app-config"}}); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "team-a's app-config reconciled after its deletion", func() bool {
		return len(p.Lines(reconcilingTeamA...)) > before
	})

	// Reconciles still running at SIGINT may fail with the cancelled context: only errors before it count.
	if errs := p.Lines("Reconciler error"); len(errs) > 0 {
		t.Errorf("reconciles failed:\n%v", errs)
	}
	p.Interrupt(t)
}
