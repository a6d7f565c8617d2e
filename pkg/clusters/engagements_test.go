// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// engagedCluster is a cluster that Engagements only ever compares by identity.
type engagedCluster struct {
	cluster.Cluster
	id int
}

// endLog records the engagements passed to the ended function.
type endLog struct {
	mu    sync.Mutex
	ended []*clusters.Engagement[int]
}

func (l *endLog) record(eng *clusters.Engagement[int]) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ended = append(l.ended, eng)
}

func (l *endLog) get() []*clusters.Engagement[int] {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.ended)
}

// eventually polls cond until it holds, failing the test after a generous deadline.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, wait.ForeverTestTimeout, true,
		func(context.Context) (bool, error) { return cond(), nil }); err != nil {
		t.Fatalf("timed out waiting until %s", what)
	}
}

// The rules every layer relies on: the same instance again is a no-op, another instance replaces, an ended
// context records nothing, and the end of the current engagement's context forgets it once and reports it.
func TestEngagementsRules(t *testing.T) {
	var log endLog
	e := clusters.NewEngagements(log.record)
	a1, a2 := &engagedCluster{id: 1}, &engagedCluster{id: 2}

	ctx1, end1 := clusters.WithLifetime(t.Context())
	eng1, replaced := e.Engage(ctx1, "a", a1)
	if eng1 == nil || replaced != nil {
		t.Fatalf("Engage(a1) = (%v, %v), want a new engagement replacing nothing", eng1, replaced)
	}
	if eng1.Name() != "a" || eng1.Cluster() != a1 || eng1.Context() != ctx1 || eng1.Gate() != nil || eng1.Ended() {
		t.Errorf("the engagement does not record what was engaged")
	}
	for _, ctx := range []context.Context{ctx1, t.Context()} {
		if eng, replaced := e.Engage(ctx, "a", a1); eng != nil || replaced != nil {
			t.Error("engaging the engaged instance again changed something")
		}
	}
	if e.Get("a") != eng1 || e.Get("a").Context() != ctx1 {
		t.Error("the first engagement did not keep its context")
	}

	ctx2, end2 := context.WithCancel(t.Context())
	eng2, replaced := e.Engage(ctx2, "a", a2)
	if eng2 == nil || replaced != eng1 || e.Get("a") != eng2 {
		t.Fatalf("Engage(a2) = (%v, %v), want a new engagement replacing the first", eng2, replaced)
	}
	end1() // the replaced engagement's end changes nothing

	ended, cancel := context.WithCancel(t.Context())
	cancel()
	if eng, replaced := e.Engage(ended, "b", a1); eng != nil || replaced != nil || e.Len() != 1 {
		t.Error("engaging with an ended context recorded something")
	}

	end2()
	if e.Get("a") != nil {
		t.Error("Get returns an engagement whose context has ended")
	}
	eventually(t, "the ended engagement is forgotten", func() bool { return e.Len() == 0 })
	eventually(t, "the ended function ran", func() bool { return len(log.get()) == 1 })
	if got := log.get(); got[0] != eng2 {
		t.Errorf("the ended function got %v, want the current engagement only", got)
	}
}

// Forget ends an engagement before its context does, once, without the ended function; an ended context then
// engages the name anew.
func TestEngagementsForget(t *testing.T) {
	var log endLog
	e := clusters.NewEngagements(log.record)
	ctx, cancel := context.WithCancel(t.Context())
	eng, _ := e.Engage(ctx, "a", &engagedCluster{})
	if !e.Forget(eng) || e.Forget(eng) {
		t.Error("Forget did not report forgetting the engagement exactly once")
	}
	if e.Get("a") != nil || e.Len() != 0 {
		t.Error("a forgotten engagement is still held")
	}
	again, replaced := e.Engage(ctx, "a", eng.Cluster())
	if again == nil || replaced != nil {
		t.Error("the instance of a forgotten engagement could not be engaged again")
	}
	again.Value = 42
	cancel()
	eventually(t, "the engagement ended", func() bool { return len(log.get()) == 1 })
	if got := log.get()[0]; got != again || got.Value != 42 {
		t.Errorf("the ended function got %v, want the second engagement with its value", got)
	}
}

// All and Names list the live engagements, sorted.
func TestEngagementsListing(t *testing.T) {
	var e clusters.Engagements[struct{}] // the zero value is ready to use
	gone, cancel := context.WithCancel(t.Context())
	for _, name := range []multicluster.ClusterName{"c", "a", "b"} {
		e.Engage(t.Context(), name, &engagedCluster{})
	}
	e.Engage(gone, "0", &engagedCluster{})
	cancel()
	if got := e.Names(); !slices.Equal(got, []multicluster.ClusterName{"a", "b", "c"}) {
		t.Errorf("Names() = %q, want a, b, c", got)
	}
	all := e.All()
	got := make([]multicluster.ClusterName, 0, len(all))
	for _, eng := range all {
		got = append(got, eng.Name())
	}
	if !slices.Equal(got, []multicluster.ClusterName{"a", "b", "c"}) {
		t.Errorf("All() lists %q, want a, b, c", got)
	}
}

// gateFunc is a WorkGate that lets every piece of work start.
type gateFunc struct{ n int }

func (g *gateFunc) StartWork(ctx context.Context) (context.Context, func(), bool) {
	g.n++
	return ctx, func() {}, true
}

// The work gate attached to an engagement's context, directly or further up, travels with the engagement.
func TestEngagementsCarryTheWorkGate(t *testing.T) {
	gate := &gateFunc{}
	fenced, cancel := context.WithCancel(clusters.WithWorkGate(t.Context(), gate))
	defer cancel()
	var e clusters.Engagements[struct{}]
	eng, _ := e.Engage(fenced, "fenced", &engagedCluster{})
	if eng.Gate() != gate {
		t.Errorf("Gate() = %v, want the gate of the engagement's context", eng.Gate())
	}
	if eng, _ := e.Engage(t.Context(), "open", &engagedCluster{}); eng.Gate() != nil {
		t.Errorf("Gate() = %v for an engagement without one, want nil", eng.Gate())
	}
	if clusters.WorkGateFrom(t.Context()) != nil {
		t.Error("WorkGateFrom found a gate in a context without one")
	}
}

// Hundreds of engagements engaged, replaced and ended, concurrently, leave nothing behind: no engagement, no
// goroutine.
func TestEngagementsLeaveNothing(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	var log endLog
	e := clusters.NewEngagements(log.record)
	run, endRun := clusters.WithLifetime(t.Context())
	var wg sync.WaitGroup
	for worker := range 4 {
		wg.Go(func() {
			for i := range 200 {
				ctx, cancel := clusters.WithLifetime(run)
				name := multicluster.ClusterName(fmt.Sprint(i % 10))
				e.Engage(ctx, name, &engagedCluster{id: worker*1000 + i})
				if i%3 == 0 {
					cancel()
				}
			}
		})
	}
	wg.Wait()
	endRun()
	eventually(t, "every engagement is forgotten", func() bool { return e.Len() == 0 })
	if n := len(log.get()); n == 0 || n > 800 {
		t.Errorf("the ended function ran %d times, want once per engagement that ended current", n)
	}
	goleak.VerifyNone(t, ignore)
}
