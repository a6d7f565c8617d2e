// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package lifecycle holds integration tests, on real control planes, of how clusters enter and leave a running
// fleet: engaging (non-blocking, idempotent, in any order), disengaging (events, queued requests, caches and
// goroutines all released), replacing a cluster under the same name, failures part-way through engaging, whose
// context a cluster's lifetime hangs off, and delete events.
package lifecycle

import (
	"testing"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fleet is shared by the tests of this package: a host and three members. Tests never share a namespace, so each
// test sees only its own objects.
var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 3})
}
