// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package harness holds what the integration tests of multicluster-runtime share: starting a fleet of real
// control planes for a test package, building and running managers, recording reconciles and polling with
// deadlines.
package harness
