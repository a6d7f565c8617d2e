// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharder

import (
	"hash/fnv"
	"math"
)

// HRW is weighted rendezvous (highest random weight) hashing: every (cluster, peer) pair has a pseudo-random score,
// scaled by the peer's weight, and a cluster belongs to the peer with the highest score. It is deterministic across
// replicas and processes, and minimal in movement: when a peer joins it takes only clusters it now wins, when a peer
// leaves only its clusters move. Loads are balanced only statistically (see the package documentation); use
// BoundedHRW for bounded loads.
type HRW struct{}

var _ Sharder = &HRW{}

// NewHRW returns a rendezvous-hashing Sharder.
func NewHRW() *HRW { return &HRW{} }

// ShouldOwn reports whether self has the highest score for the cluster among peers and self.
func (*HRW) ShouldOwn(clusterID string, peers []PeerInfo, self PeerInfo) bool {
	best := self
	bestScore := Score(clusterID, self)
	for _, p := range peers {
		if p.ID == self.ID {
			continue
		}
		if s := Score(clusterID, p); better(s, p.ID, bestScore, best.ID) {
			best, bestScore = p, s
		}
	}
	return best.ID == self.ID
}

// Prefers reports whether rendezvous hashing ranks peer a above peer b for the cluster. It is a strict total order
// for distinct peer IDs, the same on every replica.
func Prefers(clusterID string, a, b PeerInfo) bool {
	return better(Score(clusterID, a), a.ID, Score(clusterID, b), b.ID)
}

// better orders scores, breaking exact ties by peer ID so that the order is total.
func better(s float64, id string, than float64, thanID string) bool {
	if s != than {
		return s > than
	}
	return id < thanID
}

// Score is the weighted rendezvous score of a peer for a cluster: w / -ln(u), where u in (0, 1) is a hash of the
// pair and w the peer's weight. With this scaling a peer of weight w wins a share w/W of the clusters, where W is
// the sum of the weights.
func Score(clusterID string, peer PeerInfo) float64 {
	u := unitHash(clusterID, peer.ID)
	return float64(peer.weight()) / -math.Log(u)
}

// unitHash maps a (cluster, peer) pair to a float in the open interval (0, 1), uniformly: FNV-1a of the pair,
// finished with the SplitMix64 mixer so that similar names spread over all bits.
func unitHash(clusterID, peerID string) float64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(clusterID))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(peerID))
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	// 53 random bits, offset by half a step so that neither 0 nor 1 is reached.
	return (float64(x>>11) + 0.5) / (1 << 53)
}
