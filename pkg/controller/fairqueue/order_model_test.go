// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package fairqueue

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

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
// work queue of entries around the order (NewPriority's): which of Push and Touch an add calls, and the push again
// at Done of an item added while it was processed.
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

// Random adds (immediate and delayed, at random priorities), hand-outs, Dones and forgotten clusters, as
// NewPriority's work queue of entries calls the order: the order hands out what its plain specification says, counts
// what is pending, records the priority each item was handed out with, keeps one entry per request while the work
// queue holds it, and holds no entry once everything has been handed out and done. It covers raises (stale places in
// the lists) and draining.
func TestFairOrderFollowsItsSpecification(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(seed, 1))
			o := newFairOrder[mcreconcile.Request]()
			eq := entryQueue[mcreconcile.Request]{order: o}
			m := &orderModel{items: map[mcreconcile.Request]*modelItem{}}
			// finishing are the Dones that the work queue is done with and that have not finished in the order yet:
			// the worker's goroutine may finish only after others have handed the entry out again.
			type doneCall struct {
				e       *entry[mcreconcile.Request]
				handOut uint64
			}
			var finishing []doneCall
			// done plays the queue's Done up to the work queue's Done.
			done := func(r mcreconcile.Request) {
				e, handOut := o.processingEntry(r)
				if e == nil {
					t.Fatalf("%v is processed but has no entry", r)
				}
				it := m.items[r]
				it.processing = false
				if it.dirty {
					it.dirty = false
					eq.Push(e)
					m.push(it)
				}
				finishing = append(finishing, doneCall{e, handOut})
			}
			clusters := []string{"a", "b", "c"}
			var processing []mcreconcile.Request
			var held []*entry[mcreconcile.Request] // entries whose adds have not been released yet

			pop := func() {
				e := eq.Pop()
				got := e.item
				if other := o.entries[got]; other != e {
					t.Fatalf("handed out an entry of %v that is not its entry in the order", got)
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
				if e.handedOutAt != it.priority {
					t.Fatalf("%v handed out at priority %d, want %d", got, e.handedOutAt, it.priority)
				}
				it.pending, it.draining, it.processing = false, false, true
				processing = append(processing, got)
			}

			for step := range 3000 {
				cluster := clusters[rnd.IntN(len(clusters))]
				r := req(cluster, fmt.Sprint(rnd.IntN(40)))
				priority := rnd.IntN(7) - 3
				switch op := rnd.IntN(20); {
				case op < 8: // an add, as the queue and its work queue call the order
					it := m.item(r)
					e := o.acquire(r, priority)
					m.want(it, priority)
					switch {
					case it.processing:
						it.dirty = true
					case it.pending:
						eq.Touch(e)
						m.raise(it, *it.wanted)
						it.wanted = nil
					default:
						eq.Push(e)
						m.push(it)
					}
					// The adder's goroutine may release the entry only after others have handed it out or
					// finished it.
					held = append(held, e)
				case op < 10: // a delayed add
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
					if got := o.absorb(r, priority); got != want {
						t.Fatalf("step %d: absorb(%v) = %v, want %v", step, r, got, want)
					}
				case op < 17:
					if o.Len() > 0 {
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
					o.forgetCluster(multicluster.ClusterName(cluster))
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
				if len(finishing) > 0 && rnd.IntN(3) == 0 {
					i := rnd.IntN(len(finishing))
					o.finish(finishing[i].e, finishing[i].handOut)
					finishing = slices.Delete(finishing, i, i+1)
				}
				if len(held) > 0 && rnd.IntN(3) == 0 {
					i := rnd.IntN(len(held))
					o.release(held[i])
					held = slices.Delete(held, i, i+1)
				}
				if got, want := o.Len(), m.pendingCount(); got != want {
					t.Fatalf("step %d: Len = %d, want %d", step, got, want)
				}
			}

			// Drain: every add is released, everything pending is handed out, everything processed is done.
			for _, e := range held {
				o.release(e)
			}
			for o.Len() > 0 || len(processing) > 0 {
				for o.Len() > 0 {
					pop()
				}
				for _, r := range processing {
					done(r)
				}
				processing = nil
				for _, f := range finishing {
					o.finish(f.e, f.handOut)
				}
				finishing = nil
			}
			if len(o.entries) != 0 {
				t.Errorf("%d entries left once everything was handed out and done", len(o.entries))
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
