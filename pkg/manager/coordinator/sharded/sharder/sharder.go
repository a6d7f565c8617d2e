// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharder

// PeerInfo is a replica as the sharders see it: its identity and its weight.
type PeerInfo struct {
	// ID identifies the replica; it is unique among the replicas of one sharded controller.
	ID string
	// Weight is the replica's relative share of the clusters. Zero counts as 1, the default.
	Weight uint32
}

// weight returns the effective weight: 1 for an unset (zero) weight.
func (p PeerInfo) weight() uint64 {
	if p.Weight == 0 {
		return 1
	}
	return uint64(p.Weight)
}

// Sharder decides, one cluster at a time, whether a replica should own a cluster.
type Sharder interface {
	// ShouldOwn reports whether self should own the cluster, given the live peers. self counts as a peer whether or
	// not peers lists it. The answer depends only on the arguments (not on their order), so that replicas with the
	// same snapshot agree.
	ShouldOwn(clusterID string, peers []PeerInfo, self PeerInfo) bool
}

// Assigner is a Sharder that assigns a whole set of clusters at once, which lets it balance the peers' loads. The
// sharded coordinator calls Assign instead of ShouldOwn when its sharder implements Assigner.
type Assigner interface {
	Sharder

	// Assign maps every cluster to the ID of the peer that should own it. The result depends only on the sets of
	// clusters and peers (not on their order). It returns an empty map when there are no peers.
	Assign(clusterIDs []string, peers []PeerInfo) map[string]string
}
