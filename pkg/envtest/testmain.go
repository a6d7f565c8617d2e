// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// fleetStartTimeout bounds how long RunWithFleet waits for the control planes to start.
const fleetStartTimeout = 5 * time.Minute

// RunWithFleet is the body of a test package's TestMain: it starts a fleet described by opts, stores it in *fleet
// for the tests, runs them, stops the fleet (removing every file of its control planes) and exits with the tests'
// code. controller-runtime's logger writes to standard error in development mode, so that a failing test shows what
// the manager and the clusters logged.
//
//	var fleet *mcenvtest.Fleet
//
//	func TestMain(m *testing.M) { mcenvtest.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 2}) }
//
// Under go test -fuzz it starts nothing and runs the fuzz targets only (see Fuzzing). A TestMain that has files of
// its own to remove after the tests uses RunFleetTests, which returns instead of exiting.
func RunWithFleet(m *testing.M, fleet **Fleet, opts Options) {
	os.Exit(RunFleetTests(m, fleet, opts))
}

// RunFleetTests is RunWithFleet without the exit: it returns the code to exit with (1 if the fleet did not start,
// after printing why), once the fleet has stopped, so that the caller can clean up before it exits.
//
//	func TestMain(m *testing.M) {
//		dir, _ := os.MkdirTemp("", "my-test-")
//		code := mcenvtest.RunFleetTests(m, &fleet, mcenvtest.Options{Members: 2})
//		_ = os.RemoveAll(dir)
//		os.Exit(code)
//	}
func RunFleetTests(m *testing.M, fleet **Fleet, opts Options) int {
	if Fuzzing() {
		return m.Run()
	}
	logf.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.UseDevMode(true)))
	f := NewFleet(opts)
	ctx, cancel := context.WithTimeout(context.Background(), fleetStartTimeout)
	defer cancel()
	if err := f.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "starting the fleet:", err)
		return 1
	}
	cancel()
	*fleet = f
	code := m.Run()
	if err := f.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the fleet:", err)
	}
	return code
}

// Fuzzing reports whether the test binary runs for go test -fuzz, as the coordinator or as one of its worker
// processes, which run TestMain too. A fuzzing run needs no control plane: fuzz targets test parsers. When it
// returns true and no -run pattern was given, it sets -test.run to "^$", so that no test that needs control planes
// runs (the fuzz target's seed corpus still does, as fuzzing starts with it).
func Fuzzing() bool {
	if !flag.Parsed() {
		flag.Parse()
	}
	fuzzing := false
	for _, name := range []string{"test.fuzz", "test.fuzzworker"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" && f.Value.String() != "false" {
			fuzzing = true
		}
	}
	if run := flag.Lookup("test.run"); fuzzing && run != nil && run.Value.String() == "" {
		_ = run.Value.Set("^$")
	}
	return fuzzing
}
