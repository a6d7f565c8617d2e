// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package program runs the programs of a repository in their tests: it builds a program with `go build`, runs it with
the environment and flags a test gives, watches its output, and interrupts it, expecting a clean exit. It is how
this repository tests its example programs against a fleet of real control planes (the parent package envtest),
and it serves the same purpose for the example programs of a provider written outside the repository:

	func TestReconcilesTheFleet(t *testing.T) {
		p := program.Start(t, program.Build(t), []string{"KUBECONFIG=" + hostKubeconfig}, "-namespace", "fleet")
		p.WaitFor(t, "Reconciled ConfigMap", `"cluster": "member-0"`)
		p.Interrupt(t) // fails the test unless the program exits with status 0
	}

Main entry points:

  - Build and BuildPackage: compile the test's own program, or another package, into the test's temporary
    directory; a program that no longer compiles fails the test with the compiler's output.
  - Start: run a binary; it is killed when the test ends if it still runs, and its output is logged if the test
    failed.
  - Process: the running program; WaitFor and WaitForMatch poll its output with a deadline (DefaultTimeout), and
    Interrupt sends SIGINT and requires a clean exit within a minute.

Programs are built with the go command on PATH, in the module of the test's working directory (its package
directory), with the test process's environment: GOWORK, GOFLAGS and the like apply as they do to the test.
*/
package program
