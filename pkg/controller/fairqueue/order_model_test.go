// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package fairqueue

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// modelItem is what orderModel knows of a request.
type modelItem struct {
	pending, draining, processing, dirty bool
	priority                             int
	seq                                  uint64
	wanted                               *int
}

// orderModel is the order's specification written plainly: a cluster's next item is its pending item of highest
// priority, and among those the lowest seq; forgotten clusters' items go first, in that order. It also plays the
// queue around the order (NewPriority's): an add raises a pending item, marks an item being processed to be pushed
// again at its Done, and pushes any other.
type orderModel struct {
	items    map[mcreconcile.Request]*modelItem
	draining []mcreconcile.Request
	seq      uint64
}

func (m *orderModel) item(r mcreconcile.Request) *modelItem {
	if m.items[r] == nil {
		m.items[r] = &modelItem{}
	}
	return m.items[r]
}

func (m *orderModel) pendingCount() int {
	n := 0
	for _, it := range m.items {
		if it.pending {
			n++
		}
	}
	return n
}

func (m *orderModel) raise(it *modelItem, priority int) {
	if it.pending && !it.draining && priority > it.priority {
		m.seq++
		it.priority, it.seq = priority, m.seq
	}
}

func (m *orderModel) push(it *modelItem) {
	m.seq++
	it.pending, it.priority, it.seq = true, 0, m.seq
	if it.wanted != nil {
		it.priority, it.wanted = *it.wanted, nil
	}
}

func (m *orderModel) want(it *modelItem, priority int) {
	if it.wanted == nil || priority > *it.wanted {
		it.wanted = &priority
	}
}

// best returns the item the cluster hands out next.
func (m *orderModel) best(cluster multicluster.ClusterName) (mcreconcile.Request, bool) {
	var best mcreconcile.Request
	var bestItem *modelItem
	for r, it := range m.items {
		if r.ClusterName != cluster || !it.pending || it.draining {
			continue
		}
		if bestItem == nil || it.priority > bestItem.priority || it.priority == bestItem.priority && it.seq < bestItem.seq {
			best, bestItem = r, it
		}
	}
	return best, bestItem != nil
}

// Random adds (immediate and delayed, at random priorities), hand-outs, Dones and forgotten clusters, through
// NewPriority's queue, which keeps its state in the order: the queue hands out what the order's plain specification
// says, counts what is pending, hands each request out with the priority it had, keeps one entry per request while
// it holds the request, and holds no entry once everything has been handed out and done. It covers raises (stale
// places in the lists), adds during processing and draining.
func TestFairOrderFollowsItsSpecification(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(seed, 1))
			q := newFairPriorityQueue[mcreconcile.Request]("", nil, clocktesting.NewFakeClock(time.Now()))
			t.Cleanup(q.ShutDown)
			o := q.order
			m := &orderModel{items: map[mcreconcile.Request]*modelItem{}}
			done := func(r mcreconcile.Request) {
				q.Done(r)
				it := m.items[r]
				it.processing = false
				if it.dirty {
					it.dirty = false
					m.push(it)
				}
			}
			clusters := []string{"a", "b", "c"}
			var processing []mcreconcile.Request

			pop := func() {
				got, priority, shutdown := q.GetWithPriority()
				if shutdown {
					t.Fatal("the queue reports a shutdown")
				}
				it := m.items[got]
				if it == nil || !it.pending {
					t.Fatalf("handed out %v, which is not pending", got)
				}
				if len(m.draining) > 0 {
					if got != m.draining[0] {
						t.Fatalf("handed out %v, want the forgotten %v first", got, m.draining[0])
					}
					m.draining = m.draining[1:]
				} else if want, _ := m.best(got.ClusterName); got != want {
					t.Fatalf("handed out %v (priority %d, seq %d), want %v (priority %d, seq %d)",
						got, it.priority, it.seq, want, m.items[want].priority, m.items[want].seq)
				}
				if priority != it.priority {
					t.Fatalf("%v handed out at priority %d, want %d", got, priority, it.priority)
				}
				it.pending, it.draining, it.processing = false, false, true
				processing = append(processing, got)
			}

			for step := range 3000 {
				cluster := clusters[rnd.IntN(len(clusters))]
				r := req(cluster, fmt.Sprint(rnd.IntN(40)))
				priority := rnd.IntN(7) - 3
				switch op := rnd.IntN(20); {
				case op < 8: // an add now
					it := m.item(r)
					q.AddWithOpts(priorityqueue.AddOpts{Priority: &priority}, r)
					switch {
					case it.processing:
						m.want(it, priority)
						it.dirty = true
					case it.pending:
						m.raise(it, priority)
					default:
						m.want(it, priority)
						m.push(it)
					}
				case op < 10: // a delayed add, which only raises a pending request or one added while processed
					it := m.item(r)
					want := false
					switch {
					case it.pending:
						m.raise(it, priority)
						want = true
					case it.wanted != nil:
						m.want(it, priority)
						want = true
					}
					o.mu.Lock()
					got := o.absorbLocked(r, priority)
					o.mu.Unlock()
					if got != want {
						t.Fatalf("step %d: absorb(%v) = %v, want %v", step, r, got, want)
					}
				case op < 17:
					if q.Len() > 0 {
						pop()
					}
				case op < 19:
					if len(processing) > 0 {
						i := rnd.IntN(len(processing))
						r := processing[i]
						processing = slices.Delete(processing, i, i+1)
						done(r)
					}
				default:
					q.ForgetCluster(multicluster.ClusterName(cluster))
					var gone []mcreconcile.Request
					for {
						next, ok := m.best(multicluster.ClusterName(cluster))
						if !ok {
							break
						}
						m.items[next].draining = true
						gone = append(gone, next)
					}
					m.draining = append(m.draining, gone...)
				}
				if got, want := q.Len(), m.pendingCount(); got != want {
					t.Fatalf("step %d: Len = %d, want %d", step, got, want)
				}
			}

			// Drain: everything pending is handed out, everything processed is done.
			for q.Len() > 0 || len(processing) > 0 {
				for q.Len() > 0 {
					pop()
				}
				for _, r := range processing {
					done(r)
				}
				processing = nil
			}
			o.mu.Lock()
			defer o.mu.Unlock()
			if len(o.entries) != 0 || len(q.processing) != 0 {
				t.Errorf("%d entries and %d processed left once everything was handed out and done", len(o.entries), len(q.processing))
			}
		})
	}
}

// A cluster whose list never empties (a standing backlog, one push per pop) keeps handing out first in first out,
// and its list stays as long as its backlog and the taken places it keeps before moving its places down.
func TestFairOrderListThatNeverDrains(t *testing.T) {
	o := newFairOrder[mcreconcile.Request]()
	const backlog = 10
	next, want := 0, 0
	push := func() {
		o.Push(req("a", fmt.Sprint(next)))
		next++
	}
	for range backlog {
		push()
	}
	for range 20 * compactFrom {
		push()
		if got := o.Pop(); got != req("a", fmt.Sprint(want)) {
			t.Fatalf("handed out %v, want a/%d", got, want)
		}
		want++
		c := o.clusters["a"]
		if n := len(c.levels[0].places); n > 2*compactFrom+backlog {
			t.Fatalf("the list holds %d places for a backlog of %d", n, backlog)
		}
	}
}
