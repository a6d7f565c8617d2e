// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded

import (
	"context"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// phase is where a cluster stands in this replica's ownership state machine:
//
//	idle --assigned here, claimable--> claiming --fence acquired--> active
//	claiming --no longer assigned, or retracted--> idle
//	active --no longer assigned, gone, stopping, or fence not renewed in time (lost)--> draining
//	draining --every reconcile in flight returned--> releasing (or active again if still assigned and the fence
//	          stayed valid, or claiming again if it was lost and is still assigned)
//	releasing --fence released--> idle
//
// A cluster is fenced by this replica in phases active, draining and releasing; reconciles may start only in
// phase active, while the fence is valid.
type phase int

const (
	idle phase = iota
	claiming
	active
	draining
	releasing
)

func (p phase) String() string {
	switch p {
	case idle:
		return "idle"
	case claiming:
		return "claiming"
	case active:
		return "active"
	case draining:
		return "draining"
	case releasing:
		return "releasing"
	default:
		return "unknown"
	}
}

// shard is a cluster of the fleet and this replica's ownership of it. It is guarded by the coordinator's mu. The
// fleet's engagement of the cluster is kept apart, in the coordinator's fleet: a shard outlives it while it drains.
type shard struct {
	name multicluster.ClusterName

	phase phase
	since time.Time // when the current claim started, or the drain

	// act is the context the Awares are engaged with while this replica owns the cluster, cl the cluster they are
	// engaged with; stop ends act. act carries gate, through which the Awares' work on the cluster passes.
	act  context.Context
	cl   cluster.Cluster
	stop context.CancelFunc
	gate shardGate
	// inFlight counts the reconciles started and not yet returned.
	inFlight int

	// lost is set when the work stopped because the fence was not renewed in time: the cluster must be claimed
	// again before any work. lostEpoch counts such losses, to tell reconciles that overran their fence.
	lost      bool
	lostEpoch int

	// failures counts consecutive failed activations; retryAt delays the next claim after one.
	failures int
	retryAt  time.Time
}

// activation is a cluster to engage the Awares with.
type activation struct {
	shard *shard
	ctx   context.Context
	cl    cluster.Cluster
}
