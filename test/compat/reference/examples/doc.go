// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package examples holds the test that builds the example programs of the reference implementation
// (sigs.k8s.io/multicluster-runtime v0.24.1, its examples/ directory, from the Go module proxy) unchanged against
// this repository's working tree, and runs them on a local control plane. No copy of their code is kept here: the
// test takes them from the module cache.
package examples
