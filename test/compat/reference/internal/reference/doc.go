// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package reference gives the tests of this module the reference implementation of multicluster-runtime
// (sigs.k8s.io/multicluster-runtime at Version) from the Go module proxy: Download fetches it into the module
// cache, Scratch writes a scratch module that requires it, or this repository's working tree in its place, with
// this repository's dependency versions.
//
// A test that cannot reach the module proxy is skipped with a message saying so, except in CI (CI=true), where it
// fails: see Unreachable.
package reference
