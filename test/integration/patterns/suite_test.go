// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package patterns

import (
	"os"
	"testing"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fleet is shared by the tests of this package: a host and three members (see members).
var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	if os.Getenv(panicChildEnv) != "" {
		// A child process of TestRecoverPanicDisabledCrashes: it reaches the parent's fleet through a kubeconfig
		// and must not start a fleet of its own.
		os.Exit(m.Run())
	}
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: len(members)})
}
