// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package program_test

import (
	"path/filepath"
	"testing"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/envtest/program"
)

// fleet is the test package's fleet, started in TestMain.
var fleet *mcenvtest.Fleet

// testReconcilesTheFleet is a test of an example program (package main in the test's directory): it builds the
// program, runs it against the host of a fleet with a member's kubeconfig in a directory it watches, waits for the
// line that shows the member's ConfigMap reconciled, and stops it.
func testReconcilesTheFleet(t *testing.T) {
	host := filepath.Join(t.TempDir(), "host.kubeconfig")
	if err := fleet.WriteKubeconfig(host, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := program.Start(t, program.Build(t), []string{"KUBECONFIG=" + host}, "-kubeconfig-dir", dir)
	if err := fleet.WriteKubeconfig(filepath.Join(dir, "member-0.kubeconfig"), "member-0"); err != nil {
		t.Fatal(err)
	}
	p.WaitFor(t, "Reconciled ConfigMap", `"cluster": "member-0"`)
	p.Interrupt(t) // fails the test unless the program exits with status 0
}

// A test of an example program against a fleet of real control planes.
func Example() {
	_ = testReconcilesTheFleet
}
