// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded

import (
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/sharder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// rehashLocked reads the membership and recomputes the assignment if the replicas or the clusters changed.
func (c *Coordinator) rehashLocked(now time.Time) {
	c.state.lastRehash = now
	c.self = c.registry.Self()
	members := c.membersLocked(now)
	changed := !slices.Equal(members, c.state.members)
	if changed {
		ids := make([]string, len(members))
		for i, m := range members {
			ids[i] = m.ID
		}
		c.log.Info("Membership changed", "peers", strings.Join(ids, ","))
		c.state.members = members
	}
	if !changed && !c.state.dirty {
		return
	}
	c.state.dirty = false
	desired := map[multicluster.ClusterName]bool{}
	if !c.state.stopping && len(members) > 0 {
		var names []string
		for _, name := range c.fleet.Names() {
			names = append(names, name.String())
		}
		if a, ok := c.sharder.(sharder.Assigner); ok {
			for cl, peer := range a.Assign(names, members) {
				if peer == c.id {
					desired[multicluster.ClusterName(cl)] = true
				}
			}
		} else {
			for _, cl := range names {
				if c.sharder.ShouldOwn(cl, members, c.self) {
					desired[multicluster.ClusterName(cl)] = true
				}
			}
		}
	}
	c.state.desired = desired
}

// membersLocked returns the replicas to assign clusters to: those of the registry whose fence is live, or that
// have not had a fence yet and were first listed less than a lease duration ago, and this replica unless it is
// stopping. So a crashed replica leaves the assignment within the lease duration even if the registry lags.
func (c *Coordinator) membersLocked(now time.Time) []sharder.PeerInfo {
	live, known := c.fence.liveness(now)
	var out []sharder.PeerInfo
	listed := map[string]bool{}
	for _, p := range c.registry.Snapshot() {
		if p.ID == c.id || listed[p.ID] {
			continue
		}
		listed[p.ID] = true
		if known {
			seen, ok := c.state.peerSeen[p.ID]
			if !ok {
				seen = peerSeen{firstSeen: now}
			}
			isLive, hasFence := live[p.ID]
			seen.hadFence = seen.hadFence || hasFence
			c.state.peerSeen[p.ID] = seen
			switch {
			case hasFence && !isLive:
				continue
			case !hasFence && (seen.hadFence || !now.Before(seen.firstSeen.Add(c.cfg.LeaseDuration))):
				continue
			}
		}
		out = append(out, p)
	}
	for id := range c.state.peerSeen {
		if !listed[id] {
			delete(c.state.peerSeen, id)
		}
	}
	if !c.state.stopping {
		out = append(out, c.self)
	}
	slices.SortFunc(out, func(a, b sharder.PeerInfo) int { return strings.Compare(a.ID, b.ID) })
	return out
}
