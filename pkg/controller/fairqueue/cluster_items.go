// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package fairqueue

import (
	"slices"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// clusterItems are the pending items of one cluster: one first-in-first-out list per priority, the lists by
// priority, highest first. Together they hand out the items by priority, then by seq, lowest first, because items
// join a list in the order of their seq.
//
// A raised item joins the list of its new priority again; its old place goes stale and is skipped. A place is live
// while its entry is pending in this cluster (not draining) and still has the seq it joined with.
type clusterItems[request any] struct {
	cluster multicluster.ClusterName
	levels  []*priorityLevel[request] // by priority, highest first
	live    int                       // the live places, that is the cluster's pending items
}

// priorityLevel is the list of one priority; the places before head have been taken.
type priorityLevel[request any] struct {
	priority int
	places   []place[request]
	head     int
}

// place is an entry in a list, with the seq it joined with.
type place[request any] struct {
	e   *entry[request]
	seq uint64
}

// compactFrom is how many taken places a list keeps at its front before it moves its places down (when they are
// also at least half of it), so that a list that never empties does not grow without bound.
const compactFrom = 64

func (p place[request]) isLive() bool { return p.e.pending && !p.e.draining && p.e.seq == p.seq }

// push adds a newly pending entry, at its priority and seq.
func (c *clusterItems[request]) push(e *entry[request]) {
	c.join(e)
	c.live++
}

// raise adds again a pending entry whose priority and seq have just been raised; its old place goes stale.
func (c *clusterItems[request]) raise(e *entry[request]) {
	c.join(e)
}

// join appends the entry to the list of its priority.
func (c *clusterItems[request]) join(e *entry[request]) {
	i, found := slices.BinarySearchFunc(c.levels, e.priority, func(l *priorityLevel[request], priority int) int {
		switch {
		case l.priority > priority:
			return -1
		case l.priority < priority:
			return 1
		}
		return 0
	})
	if !found {
		c.levels = slices.Insert(c.levels, i, &priorityLevel[request]{priority: e.priority})
	}
	l := c.levels[i]
	l.places = append(l.places, place[request]{e: e, seq: e.seq})
}

// pop removes and returns the first live entry: of the highest priority, the one that joined first. The cluster
// must have one.
func (c *clusterItems[request]) pop() *entry[request] {
	for {
		l := c.levels[0]
		for l.head < len(l.places) {
			p := l.places[l.head]
			l.places[l.head] = place[request]{}
			l.head++
			if !p.isLive() {
				continue
			}
			c.live--
			switch {
			case l.head == len(l.places):
				c.levels = slices.Delete(c.levels, 0, 1)
			case l.head >= compactFrom && 2*l.head >= len(l.places):
				n := copy(l.places, l.places[l.head:])
				clear(l.places[n:])
				l.places, l.head = l.places[:n], 0
			}
			return p.e
		}
		c.levels = slices.Delete(c.levels, 0, 1)
	}
}
