// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package peers

import (
	"context"
	"time"

	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/sharder"
)

// Registry is the membership of a sharded controller's replicas.
type Registry interface {
	// Self is this replica.
	Self() sharder.PeerInfo
	// Snapshot returns the live replicas, this one included, sorted by ID.
	Snapshot() []sharder.PeerInfo
	// Run announces this replica and follows the others until ctx ends; then it withdraws this replica.
	Run(ctx context.Context) error
}

// LeaseTimingsSetter is implemented by registries whose liveness follows lease timings. The sharded coordinator
// calls SetLeaseTimings before Run with its own timings (WithLeaseTimings), whether the registry is its default one
// or one given with WithPeerRegistry.
type LeaseTimingsSetter interface {
	// SetLeaseTimings sets how long a replica stays live without renewing (duration) and how often this replica
	// renews (renew).
	SetLeaseTimings(duration, renew time.Duration)
}

// Syncer is implemented by registries that need time to learn the membership after Run starts.
type Syncer interface {
	// HasSynced reports whether Snapshot reflects the replicas that were announced when Run started.
	HasSynced() bool
}

// WeightSetter is implemented by registries that can change this replica's weight at run time.
type WeightSetter interface {
	// SetWeight announces a new weight for this replica. Zero counts as 1.
	SetWeight(weight uint32)
}
