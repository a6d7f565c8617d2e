// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package patterns holds integration tests, on real control planes, of the patterns multi-cluster controllers are
// written with: a host-driven reconciler that writes into every member, owner and map-func enqueueing within and
// across clusters, late registration of controllers and runnables, members joining and leaving while the manager
// runs, field indexes, clusters being gettable before their events arrive, single-cluster mode, the manager's
// controller options (name validation, concurrency, panic recovery, leader election), ProviderRunnable start-up,
// scoped managers, and the cluster name in reconcile contexts and loggers.
//
// All tests share one fleet (a host and three members) started by TestMain; each test works in its own namespace
// and uses controller names of its own.
package patterns
