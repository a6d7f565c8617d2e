// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharder

import (
	"math"
	"slices"
	"strings"
)

// BoundedHRW is rendezvous hashing with bounded loads. It implements Assigner: every peer gets a capacity, its
// weighted share of the clusters rounded by the largest-remainder method (so that the capacities add up to the
// number of clusters) plus Slack times that share; then the (cluster, peer) pairs are taken in decreasing order of
// their rendezvous score (see Score) and each cluster goes to the first peer of its pairs that still has room.
// This is the unique stable assignment for those scores and capacities: no cluster and peer would both rather be
// matched to each other. Every replica computes the same assignment from the same clusters and peers.
//
// With Slack 0 (the default of NewBoundedHRW(0)) every peer owns its weighted share to within one cluster, apart
// from rounding; a joining or leaving peer moves about its share of the clusters plus a few percent that shift
// between the other peers as their capacities change, and a cluster that joins or leaves the fleet moves at most a
// handful of others. A positive Slack (say 0.05) trades balance for even less movement.
//
// ShouldOwn, which sees one cluster only, cannot bound loads: it answers as HRW does.
type BoundedHRW struct {
	// Slack is the fraction of its share a peer may own beyond it. Negative values count as 0.
	Slack float64
}

var _ Assigner = &BoundedHRW{}

// NewBoundedHRW returns a bounded-load rendezvous Assigner with the given slack (0 for the tightest balance).
func NewBoundedHRW(slack float64) *BoundedHRW {
	return &BoundedHRW{Slack: slack}
}

// ShouldOwn answers as HRW.ShouldOwn: one cluster alone cannot be assigned with bounded loads.
func (*BoundedHRW) ShouldOwn(clusterID string, peers []PeerInfo, self PeerInfo) bool {
	return (&HRW{}).ShouldOwn(clusterID, peers, self)
}

// pair is a cluster, a peer and its score for the cluster.
type pair struct {
	score   float64
	cluster int // index into the sorted cluster IDs
	peer    int // index into the sorted peers
}

// Assign maps every cluster to a peer, bounding each peer's load by its capacity (see BoundedHRW).
func (b *BoundedHRW) Assign(clusterIDs []string, peers []PeerInfo) map[string]string {
	out := make(map[string]string, len(clusterIDs))
	if len(peers) == 0 || len(clusterIDs) == 0 {
		return out
	}
	clusters := slices.Clone(clusterIDs)
	slices.Sort(clusters)
	clusters = slices.Compact(clusters)
	ps := uniquePeers(peers)
	capacity := capacities(len(clusters), ps, b.Slack)

	pairs := make([]pair, 0, len(clusters)*len(ps))
	for ci, c := range clusters {
		for pi, p := range ps {
			pairs = append(pairs, pair{score: Score(c, p), cluster: ci, peer: pi})
		}
	}
	slices.SortFunc(pairs, func(x, y pair) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		case x.cluster != y.cluster:
			return x.cluster - y.cluster
		default:
			return x.peer - y.peer
		}
	})

	load := make([]int, len(ps))
	for _, pr := range pairs {
		c := clusters[pr.cluster]
		if _, done := out[c]; done || load[pr.peer] >= capacity[pr.peer] {
			continue
		}
		out[c] = ps[pr.peer].ID
		load[pr.peer]++
		if len(out) == len(clusters) {
			break
		}
	}
	return out
}

// uniquePeers returns the peers sorted by ID, the first of each ID kept.
func uniquePeers(peers []PeerInfo) []PeerInfo {
	ps := slices.Clone(peers)
	slices.SortStableFunc(ps, func(a, b PeerInfo) int { return strings.Compare(a.ID, b.ID) })
	return slices.CompactFunc(ps, func(a, b PeerInfo) bool { return a.ID == b.ID })
}

// capacities gives each peer floor(share) clusters, where share = n*w/W, then one more to the peers with the
// largest remainders (ties by ID) until the capacities add up to n, then slack*share more. Integer arithmetic keeps
// it identical on every replica.
func capacities(n int, peers []PeerInfo, slack float64) []int {
	var total uint64
	for _, p := range peers {
		total += p.weight()
	}
	caps := make([]int, len(peers))
	rems := make([]uint64, len(peers))
	assigned := 0
	for i, p := range peers {
		num := uint64(n) * p.weight()
		caps[i] = int(num / total)
		rems[i] = num % total
		assigned += caps[i]
	}
	order := make([]int, len(peers))
	for i := range order {
		order[i] = i
	}
	// peers is sorted by ID, so a stable sort breaks remainder ties by ID.
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case rems[a] > rems[b]:
			return -1
		case rems[a] < rems[b]:
			return 1
		default:
			return 0
		}
	})
	for _, i := range order[:n-assigned] {
		caps[i]++
	}
	if slack > 0 {
		for i, p := range peers {
			share := float64(n) * float64(p.weight()) / float64(total)
			caps[i] += int(math.Floor(slack * share))
		}
	}
	return caps
}
