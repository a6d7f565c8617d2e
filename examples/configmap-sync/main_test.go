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
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 2})
}

// The program, run against a host with two members' kubeconfig Secrets, copies a host ConfigMap into both members,
// puts back a copy deleted in a member, and exits cleanly on SIGINT.
func TestSyncsHostConfigMapToEveryMember(t *testing.T) {
	host := harness.Client(t, fleet, mcenvtest.HostName)
	for _, ns := range []string{"kubeconfigs", "fleet-sync"} {
		if err := host.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, member := range fleet.Members() {
		data, err := fleet.Kubeconfig(member)
		if err != nil {
			t.Fatal(err)
		}
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "kubeconfigs", Name: member, Labels: map[string]string{kubeconfig.DefaultKubeconfigSecretLabel: "true"}},
			Data:       map[string][]byte{kubeconfig.DefaultKubeconfigSecretKey: data},
		}
		if err := host.Create(t.Context(), secret); err != nil {
			t.Fatal(err)
		}
	}
	source := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet-sync", Name: "settings"}, Data: map[string]string{"color": "blue"}}
	if err := host.Create(t.Context(), source); err != nil {
		t.Fatal(err)
	}

	hostKubeconfig := filepath.Join(t.TempDir(), "host.kubeconfig")
	if err := fleet.WriteKubeconfig(hostKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	p := program.Start(t, program.Build(t), []string{"KUBECONFIG=" + hostKubeconfig}, "-kubeconfig-namespace", "kubeconfigs")

	copied := func(member string) func() bool {
		return func() bool {
			cm := &corev1.ConfigMap{}
			err := harness.Client(t, fleet, member).Get(t.Context(), client.ObjectKeyFromObject(source), cm)
			return err == nil && cm.Data["color"] == "blue"
		}
	}
	for _, member := range fleet.Members() {
		harness.Eventually(t, 0, "the ConfigMap copied to "+member, copied(member))
		// The program logs after its write returns: the copy can be seen before the line is.
		p.WaitFor(t, "synced ConfigMap fleet-sync/settings to cluster "+member)
	}
	if err := harness.Client(t, fleet, "member-1").Delete(t.Context(), source.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "the copy deleted in member-1 put back", copied("member-1"))

	p.Interrupt(t)
}
