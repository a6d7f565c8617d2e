// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package kubebuilder holds the test that a project scaffolded by kubebuilder and adapted to the reference
// implementation of multicluster-runtime (sigs.k8s.io/multicluster-runtime v0.24.1), as the reference's users adapt
// one, builds unchanged against this repository's working tree and reconciles in every cluster of a local fleet.
// The project is in testdata/project, a module of its own; see its README.
package kubebuilder
