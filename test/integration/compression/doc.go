// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package compression tests, on a real API server, that the clusters clusters.NewCluster builds ask for
// uncompressed watches and keep compressed lists, and that an HTTP client set by the caller keeps both compressed.
package compression
