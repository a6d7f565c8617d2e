// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package basic provides the default Coordinator of the multi-cluster manager: it engages every cluster-aware runnable
with every cluster, as a single replica does.

A Coordinator decides which clusters this process engages its controllers and other cluster-aware runnables with
(see mcmanager.Coordinator and mcmanager.WithCoordinator). The basic coordinator engages all of them: each cluster
the provider engages is handed to every registered Aware, in order, exactly once, including Awares registered
later; a cluster stays engaged until the context it was engaged with ends. Use it (the default) for a single
replica, or for several replicas of which only the elected leader works. To split a fleet between replicas, use
the sharded coordinator (package sharded).

Main entry point: New.
*/
package basic
