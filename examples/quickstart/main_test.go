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

// The quickstart program, run as the quickstart says (--kubeconfig for the host, -fleet for the members' kubeconfig
// files), reconciles a ConfigMap of a member whose file is there when it starts and one of a member whose file is
// written while it runs, logs each under its cluster's name, and exits cleanly on Ctrl-C.
func TestQuickstartReconcilesEveryMember(t *testing.T) {
	for _, member := range []string{"member-0", "member-1"} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "hello-" + member}, Data: map[string]string{"a": "b"}}
		if err := harness.Client(t, fleet, member).Create(t.Context(), cm); err != nil {
			t.Fatal(err)
		}
	}
	host := filepath.Join(t.TempDir(), "host.kubeconfig")
	if err := fleet.WriteKubeconfig(host, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	first := filepath.Join(dir, "member-0.kubeconfig")
	if err := fleet.WriteKubeconfig(first, "member-0"); err != nil {
		t.Fatal(err)
	}

	p := program.Start(t, program.Build(t), nil, "--kubeconfig", host, "-fleet", dir)
	p.WaitFor(t, "Reconciled ConfigMap", `"cluster": "`+first+`+member-0"`, `"name": "hello-member-0"`, `"keys": 1`)

	second := filepath.Join(dir, "member-1.kubeconfig")
	if err := fleet.WriteKubeconfig(second, "member-1"); err != nil {
		t.Fatal(err)
	}
	p.WaitFor(t, "Reconciled ConfigMap", `"cluster": "`+second+`+member-1"`, `"name": "hello-member-1"`)
	p.Interrupt(t)
}
