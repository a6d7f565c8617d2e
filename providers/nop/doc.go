// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package nop provides a provider that never has clusters.

A manager built with it runs in single-cluster mode: controllers built with the multi-cluster builder watch the host
cluster, so multi-cluster-aware reconciler code runs unchanged against one cluster.
*/
package nop
