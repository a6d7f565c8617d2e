// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespace_test

import (
	"testing"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fleet is shared by the integration tests of this package: a host control plane only, whose namespaces are the
// virtual clusters. Every test uses namespaces of its own (prefixed with the test's short name), so tests see only
// their own objects; the provider of each test does see the namespaces of the others, which is what a real cluster
// looks like.
var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{})
}
