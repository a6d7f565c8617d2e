// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package apidiff holds the test that compares this module's exported API with the reference implementation's
// (sigs.k8s.io/multicluster-runtime v0.24.1 from the Go module proxy): every incompatible difference must be
// listed, with its reason, in docs/getting-started/compatibility.md.
package apidiff
