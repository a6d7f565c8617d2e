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
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 1})
}

// One controller over a composed fleet: a namespace of the host as "team#<namespace>" (seen as "default" inside)
// and a member as "kube#member-0".
func TestReconcilesAcrossComposedProviders(t *testing.T) {
	host := harness.Client(t, fleet, mcenvtest.HostName)
	if err := host.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}); err != nil {
		t.Fatal(err)
	}
	if err := host.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "in-a-namespace"}}); err != nil {
		t.Fatal(err)
	}
	if err := harness.Client(t, fleet, "member-0").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "in-a-member"}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	hostKubeconfig, fleetKubeconfig := filepath.Join(dir, "host"), filepath.Join(dir, "fleet")
	if err := fleet.WriteKubeconfig(hostKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	if err := fleet.WriteKubeconfig(fleetKubeconfig, "member-0"); err != nil {
		t.Fatal(err)
	}

	p := program.Start(t, program.Build(t), []string{"KUBECONFIG=" + hostKubeconfig}, "-fleet-kubeconfig", fleetKubeconfig)
	p.WaitFor(t, `ConfigMap default/in-a-namespace in cluster "team#team-a"`)
	p.WaitFor(t, `ConfigMap default/in-a-member in cluster "kube#member-0"`)
	p.Interrupt(t)
}
