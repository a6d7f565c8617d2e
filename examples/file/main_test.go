// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"path/filepath"
	"strings"
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

// The program reconciles a ConfigMap of the member whose kubeconfig file is written into the directory given with
// -kubeconfig-dirs while it runs, under the name "<file path>+<context>", and logs it with that name. The other two
// flags are left empty, as a user of the reference's example would.
func TestReconcilesClustersOfKubeconfigFiles(t *testing.T) {
	if err := harness.Client(t, fleet, "member-0").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "hello"}}); err != nil {
		t.Fatal(err)
	}
	hostKubeconfig := filepath.Join(t.TempDir(), "host")
	if err := fleet.WriteKubeconfig(hostKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()

	p := program.Start(t, program.Build(t), []string{"KUBECONFIG=" + hostKubeconfig}, "-kubeconfig-dirs", dir)
	member := filepath.Join(dir, "east.kubeconfig")
	if err := fleet.WriteKubeconfig(member, "member-0"); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "ConfigMap default/hello of "+member+"+member-0 logged", func() bool {
		for line := range strings.Lines(p.Output()) {
			if strings.Contains(line, "ConfigMap found") && strings.Contains(line, `"cluster": "`+member+`+member-0"`) &&
				strings.Contains(line, `"namespace": "default"`) && strings.Contains(line, `"name": "hello"`) {
				return true
			}
		}
		return false
	})
	p.Interrupt(t)
}
