// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package leases observes the Leases of a sharded controller (its fences and its peers) the way client-go's leader
// election does: a Lease is judged live or expired by how long this process has seen it unchanged (the same
// resourceVersion), never by comparing its renewTime with the local clock. It also names Leases after clusters and
// replicas, and encodes the lists of clusters kept in their annotations.
package leases
