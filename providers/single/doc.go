// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package single provides a provider of exactly one pre-built cluster under a fixed name.

It lets code written for a fleet run against one cluster that is not the host (for example a workload cluster
reached from a management cluster), with the same types and helpers as any other provider.
*/
package single
