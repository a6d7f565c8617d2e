// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded

import (
	"context"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"

	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/internal/leases"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Labels and annotations of the fence Leases.
const (
	// LabelFence labels every fence Lease; its value is the fence prefix (made a valid label value if it is not).
	LabelFence = "multicluster.x-k8s.io/shard-fence"
	// LabelFenceKind tells replica fences ("replica") from per-cluster fences ("cluster").
	LabelFenceKind = "multicluster.x-k8s.io/shard-fence-kind"
	// AnnotationClusters lists, as a JSON array, the clusters a replica fence holds: its replica works on them, or
	// is draining them.
	AnnotationClusters = "multicluster.x-k8s.io/clusters"
	// AnnotationClaims lists, as a JSON array, the clusters a replica fence claims: its replica is assigned them and
	// waits for their previous holder to release them.
	AnnotationClaims = "multicluster.x-k8s.io/claims"
	// AnnotationCluster is the name of the cluster a per-cluster fence fences.
	AnnotationCluster = "multicluster.x-k8s.io/cluster"

	fenceKindReplica = "replica"
	fenceKindCluster = "cluster"
)

// fence is how the coordinator fences clusters: one Lease per replica listing its clusters, or one Lease per
// cluster. Its methods are safe for concurrent use; sync is called by one goroutine at a time.
type fence interface {
	// run observes the fences until ctx ends.
	run(ctx context.Context) error
	// synced reports whether the fences have been read once.
	synced() bool
	// sync makes the writes and reads of one round of the ownership loop.
	sync(ctx context.Context, r round) roundResult
	// validUntil is when this replica's fence of the cluster stops being valid for it to work on the cluster; the
	// zero time if it does not hold a fence of it.
	validUntil(name multicluster.ClusterName) time.Time
	// mayClaim reports whether this replica may claim the cluster now, as far as the fences it has seen tell.
	mayClaim(name multicluster.ClusterName, now time.Time) bool
	// liveness reports, by peer ID, whether each replica that has a fence has a live one (seen changing within its
	// lease duration); known is false if the fences do not tell (per-cluster fences).
	liveness(now time.Time) (live map[string]bool, known bool)
	// nextWake is when the fence next needs a round: a renewal due, another replica's fence expiring, a throttled
	// write becoming possible. The zero time means no need.
	nextWake(now time.Time) time.Time
	// shutdown withdraws this replica's fences once it holds no cluster.
	shutdown(ctx context.Context)
}

// round is what the coordinator asks of its fences in one round.
type round struct {
	// held are the clusters this replica works on or drains: they stay fenced.
	held []multicluster.ClusterName
	// claims are the clusters assigned to this replica that it does not hold yet.
	claims []multicluster.ClusterName
	// release are the clusters this replica has drained and gives up.
	release []multicluster.ClusterName
}

// roundResult is what the fences did in one round.
type roundResult struct {
	// acquired are claims this replica now holds: it may work on them.
	acquired []multicluster.ClusterName
	// retracted are claims given up because another replica, preferred for the cluster, claims it too.
	retracted []multicluster.ClusterName
	// released are the clusters no longer fenced by this replica.
	released []multicluster.ClusterName
}

// markFence makes lease a fence of the kind: its label and annotation maps exist, and its labels say it is a fence
// with this prefix and of this kind.
func markFence(lease *coordinationv1.Lease, prefix, kind string) {
	if lease.Labels == nil {
		lease.Labels = map[string]string{}
	}
	if lease.Annotations == nil {
		lease.Annotations = map[string]string{}
	}
	lease.Labels[LabelFence] = leases.LabelValue(prefix)
	lease.Labels[LabelFenceKind] = kind
}

// toSet returns the names as a set.
func toSet(names []multicluster.ClusterName) map[multicluster.ClusterName]bool {
	out := make(map[multicluster.ClusterName]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out
}

// strings returns the names as strings.
func toStrings(names []multicluster.ClusterName) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n.String()
	}
	return out
}

// parallel calls fn for every item with at most n calls at a time.
func parallel[T any](n int, items []T, fn func(T)) {
	if len(items) == 0 {
		return
	}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for _, it := range items {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			fn(it)
		})
	}
	wg.Wait()
}

// earliest returns the earliest non-zero time, or the zero time.
func earliest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if !t.IsZero() && (out.IsZero() || t.Before(out)) {
			out = t
		}
	}
	return out
}

// validAt reports whether a fence valid until deadline is still valid at now: now is before the deadline on the
// monotonic clock and on the wall clock. The monotonic clock decides normally; but it stands still while the
// machine is suspended, when the wall clock jumps ahead, so a replica that wakes from a suspend still stops at
// once. (Only this process's own clocks are compared; other replicas' clocks never are.)
func validAt(now, deadline time.Time) bool {
	return now.Before(deadline) && now.Round(0).Before(deadline.Round(0))
}

// retryGap is how long a replica waits after a failed fence write before the next attempt: often enough to renew
// within the renew deadline, not so often as to hammer a struggling API server.
func retryGap(cfg Config) time.Duration {
	return max(cfg.FenceThrottle, min(cfg.Probe, cfg.LeaseRenew/4))
}
