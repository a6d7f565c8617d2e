// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package informer holds the tests of pkg/informer that need the rest of the library (a manager, a provider and a
// controller), which pkg/informer's own tests cannot import: pkg/clusters builds every cluster with pkg/informer.
package informer
