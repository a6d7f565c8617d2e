// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package sharding is the end-to-end test of the sharded coordinator: replicas of a sharded controller run as OS
// processes (the program in ./replica) against one real host API server, and the test kills, pauses, adds and
// stops them while it drives reconciles, then checks from what every replica recorded that no two replicas ever
// reconciled a cluster at the same time, and that handoffs and failovers met their bounds. Run it with -v to see
// the figures.
package sharding
