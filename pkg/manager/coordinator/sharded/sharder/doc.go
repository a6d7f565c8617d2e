// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package sharder decides which replica of a sharded controller owns which cluster.

A Sharder answers, for one cluster, whether this replica should own it, given the live peers (the replicas, with
their weights). Every replica computes the same answer from the same peer snapshot: the decision is a pure function
of its inputs, with no coordination. The sharded coordinator (package sharded) turns the answer into ownership by
fencing it with Leases; a Sharder is never trusted for safety, only for where clusters should go.

Two sharders are provided:

  - HRW: weighted rendezvous (highest random weight) hashing. Each cluster goes to the peer with the highest score
    for it; a peer that joins or leaves moves only the clusters it wins or held. Per-peer loads follow a binomial
    spread around the weighted share: at 1,000 clusters and 3 peers a peer can easily be 5% off, and with more
    peers the relative spread grows.
  - BoundedHRW: rendezvous hashing with bounded loads. It implements Assigner: it assigns the whole set of clusters
    at once, giving each peer at most its weighted share (rounded by the largest-remainder method, plus an optional
    slack), each cluster going to the highest-scoring peer that still has room. The result is the unique stable
    assignment for those scores and capacities, so it is deterministic; it keeps every peer within one or two
    clusters of its share, and a peer that joins or leaves moves a little more than the clusters that must move
    (the tests bound it at 1.25 times that at 1,000 clusters). It is the sharded coordinator's default.

Main entry points: Sharder, Assigner, PeerInfo, NewHRW, NewBoundedHRW, Prefers.
*/
package sharder
