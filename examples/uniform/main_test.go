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
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 2})
}

func annotated(t *testing.T, name, ns, cm, want string) func() bool {
	return func() bool {
		got := &corev1.ConfigMap{}
		err := harness.Client(t, fleet, name).Get(t.Context(), client.ObjectKey{Namespace: ns, Name: cm}, got)
		return err == nil && got.Annotations[keysAnnotation] == want
	}
}

// The same reconciler, over a fleet of two members (each a context of the fleet kubeconfig) and then in
// single-cluster mode against the host: each ConfigMap is annotated in the cluster it lives in.
func TestUniformReconcilerInBothModes(t *testing.T) {
	for i, name := range []string{"member-0", "member-1", mcenvtest.HostName} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "uniform"}, Data: map[string]string{}}
		for k := range i + 1 {
			cm.Data[string(rune('a'+k))] = "v"
		}
		if err := harness.Client(t, fleet, name).Create(t.Context(), cm); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	hostKubeconfig, fleetKubeconfig := filepath.Join(dir, "host"), filepath.Join(dir, "fleet")
	if err := fleet.WriteKubeconfig(hostKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	if err := fleet.WriteKubeconfig(fleetKubeconfig, "member-0", "member-1"); err != nil {
		t.Fatal(err)
	}
	bin := program.Build(t)

	p := program.Start(t, bin, []string{"KUBECONFIG=" + hostKubeconfig}, "-fleet-kubeconfig", fleetKubeconfig)
	p.WaitFor(t, `ConfigMap default/uniform in cluster "member-0" has 1 keys`)
	p.WaitFor(t, `ConfigMap default/uniform in cluster "member-1" has 2 keys`)
	harness.Eventually(t, 0, "annotated in member-0", annotated(t, "member-0", "default", "uniform", "1"))
	harness.Eventually(t, 0, "annotated in member-1", annotated(t, "member-1", "default", "uniform", "2"))
	p.Interrupt(t)

	single := program.Start(t, bin, []string{"KUBECONFIG=" + hostKubeconfig}, "-single")
	single.WaitFor(t, `ConfigMap default/uniform in cluster "" has 3 keys`)
	harness.Eventually(t, 0, "annotated in the host", annotated(t, mcenvtest.HostName, "default", "uniform", "3"))
	single.Interrupt(t)
}
