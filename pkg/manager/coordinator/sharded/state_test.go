// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/sharder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// fakeFence grants every claim unless refused, keeps fences valid until told otherwise, and records the rounds.
type fakeFence struct {
	mu      sync.Mutex
	valid   map[multicluster.ClusterName]time.Time
	refuse  map[multicluster.ClusterName]bool
	rounds  []round
	shut    bool
	claimed map[multicluster.ClusterName]int
}

func newFakeFence() *fakeFence {
	return &fakeFence{valid: map[multicluster.ClusterName]time.Time{}, refuse: map[multicluster.ClusterName]bool{}, claimed: map[multicluster.ClusterName]int{}}
}

func (f *fakeFence) run(ctx context.Context) error { <-ctx.Done(); return nil }

// setRefused makes the fence refuse claims of the cluster, or grant them again.
func (f *fakeFence) setRefused(name multicluster.ClusterName, refused bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refuse[name] = refused
}
func (f *fakeFence) synced() bool { return true }
func (f *fakeFence) mayClaim(multicluster.ClusterName, time.Time) bool {
	return true
}
func (f *fakeFence) liveness(time.Time) (map[string]bool, bool) { return nil, false }
func (f *fakeFence) nextWake(time.Time) time.Time               { return time.Time{} }
func (f *fakeFence) shutdown(context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shut = true
}

func (f *fakeFence) validUntil(name multicluster.ClusterName) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.valid[name]
}

func (f *fakeFence) sync(_ context.Context, r round) roundResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rounds = append(f.rounds, r)
	var res roundResult
	for _, c := range r.claims {
		f.claimed[c]++
		if !f.refuse[c] {
			f.valid[c] = time.Now().Add(time.Hour)
			res.acquired = append(res.acquired, c)
		}
	}
	for _, c := range r.release {
		delete(f.valid, c)
		res.released = append(res.released, c)
	}
	return res
}

// expire makes this replica's fence of the cluster invalid, as an unrenewed fence becomes.
func (f *fakeFence) expire(name multicluster.ClusterName) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.valid[name] = time.Now().Add(-time.Second)
}

// lastRound returns the last round's plan.
func (f *fakeFence) lastRound() round {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rounds[len(f.rounds)-1]
}

// memberRegistry is a registry whose membership the test sets.
type memberRegistry struct {
	mu    sync.Mutex
	self  sharder.PeerInfo
	peers []sharder.PeerInfo
}

func (r *memberRegistry) Self() sharder.PeerInfo { return r.self }
func (r *memberRegistry) Snapshot() []sharder.PeerInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.peers)
}
func (r *memberRegistry) Run(ctx context.Context) error { <-ctx.Done(); return nil }
func (r *memberRegistry) set(ids ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.peers = nil
	for _, id := range ids {
		r.peers = append(r.peers, sharder.PeerInfo{ID: id, Weight: 1})
	}
}

// recorder is an Aware that records its engagements and can fail them.
type recorder struct {
	mu   sync.Mutex
	ctxs map[multicluster.ClusterName]context.Context
	n    map[multicluster.ClusterName]int
	fail error
}

func (r *recorder) Engage(ctx context.Context, name multicluster.ClusterName, _ cluster.Cluster) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ctxs[name] = ctx
	r.n[name]++
	return r.fail
}

func (r *recorder) engaged(name multicluster.ClusterName) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx := r.ctxs[name]
	return ctx != nil && ctx.Err() == nil
}

type opaqueCluster struct{ cluster.Cluster }

// stateHarness drives one coordinator round by round, with a fake fence and a settable membership; time passes
// only as far as the rehash interval needs.
type stateHarness struct {
	t     *testing.T
	c     *Coordinator
	f     *fakeFence
	reg   *memberRegistry
	aware *recorder
}

func newStateHarness(t *testing.T, clusters ...multicluster.ClusterName) *stateHarness {
	reg := &memberRegistry{self: sharder.PeerInfo{ID: "me", Weight: 1}}
	reg.set("me")
	c := New(nil, logr.Discard(), WithPeerRegistry(reg), WithSynchronizationIntervals(time.Second, time.Nanosecond))
	f := newFakeFence()
	c.fence = f
	c.state.peerSeen = map[string]peerSeen{}
	c.state.desired = map[multicluster.ClusterName]bool{}
	c.watch = time.AfterFunc(time.Hour, func() {})
	t.Cleanup(func() { c.watch.Stop() })
	a := &recorder{ctxs: map[multicluster.ClusterName]context.Context{}, n: map[multicluster.ClusterName]int{}}
	c.AddAware(a)
	for _, n := range clusters {
		if err := c.Engage(t.Context(), n, opaqueCluster{}); err != nil {
			t.Fatal(err)
		}
	}
	return &stateHarness{t: t, c: c, f: f, reg: reg, aware: a}
}

func (h *stateHarness) round() {
	h.c.round(h.t.Context())
}

// assignAllTo adds the peer to the membership, gives it every cluster and runs a round.
func (h *stateHarness) assignAllTo(peer string) {
	h.reg.set("me", peer)
	h.c.mu.Lock()
	h.c.sharder = assignTo(peer)
	h.c.mu.Unlock()
	h.round()
}

func (h *stateHarness) phase(name multicluster.ClusterName) phase {
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	if s := h.c.shards[name]; s != nil {
		return s.phase
	}
	return -1
}

// A cluster assigned here is claimed, acquired and engaged; while the inputs stay the same, nothing moves again
// however many rounds pass (no flapping).
func TestStateClaimAcquireAndStay(t *testing.T) {
	h := newStateHarness(t, "x", "y")
	h.round() // assign, claim
	if got := h.f.lastRound().claims; !slices.Equal(got, []multicluster.ClusterName{"x", "y"}) {
		t.Fatalf("claims = %v, want x and y", got)
	}
	if h.phase("x") != active || !h.aware.engaged("x") {
		t.Fatalf("x is %s (engaged %v), want active and engaged", h.phase("x"), h.aware.engaged("x"))
	}
	for range 20 {
		h.round()
	}
	if n := h.aware.n["x"]; n != 1 {
		t.Errorf("x engaged %d times over 20 stable rounds, want once", n)
	}
	if h.f.claimed["x"] != 1 {
		t.Errorf("x claimed %d times, want once", h.f.claimed["x"])
	}
	if got := h.f.lastRound().held; !slices.Equal(got, []multicluster.ClusterName{"x", "y"}) {
		t.Errorf("held = %v, want x and y", got)
	}
}

// A cluster no longer assigned here is drained: its engagement ends at once, new work is refused, and it is
// released only after the work in flight has returned.
func TestStateDrainWaitsForWork(t *testing.T) {
	h := newStateHarness(t, "x")
	h.round()
	workCtx, done, ok := h.c.StartClusterWork(t.Context(), "x")
	if !ok {
		t.Fatal("work on an owned cluster refused")
	}

	h.assignAllTo("other")
	if h.phase("x") != draining || h.aware.engaged("x") || !ended(workCtx) {
		t.Fatalf("x is %s, engaged %v, work context %v: want draining, disengaged, work told to stop", h.phase("x"), h.aware.engaged("x"), workCtx.Err())
	}
	if _, _, ok := h.c.StartClusterWork(t.Context(), "x"); ok {
		t.Error("new work on a draining cluster allowed")
	}
	for range 5 {
		h.round()
	}
	if h.phase("x") != draining || slices.Contains(h.f.lastRound().release, "x") || !slices.Contains(h.f.lastRound().held, "x") {
		t.Fatalf("x is %s and the fence plan %+v: want still draining and held while work is in flight", h.phase("x"), h.f.lastRound())
	}
	done()
	h.round()
	if h.phase("x") != idle {
		t.Errorf("x is %s after its work returned, want released (idle)", h.phase("x"))
	}
	if !slices.Contains(h.f.lastRound().release, "x") {
		t.Error("x was not released")
	}
}

// A cluster whose fence was not renewed in time is lost: its work stops, new work is refused even once the fence
// is valid again, and it is worked on again only after it has been claimed and acquired again through the fence.
func TestStateLostFenceMustBeReacquired(t *testing.T) {
	h := newStateHarness(t, "x")
	h.round()
	workCtx, done, _ := h.c.StartClusterWork(t.Context(), "x")
	h.f.expire("x")
	if _, _, ok := h.c.StartClusterWork(t.Context(), "x"); ok {
		t.Error("work allowed on a cluster whose fence expired")
	}
	h.f.setRefused("x", true)
	h.round()
	if h.phase("x") != draining || !ended(workCtx) {
		t.Fatalf("x is %s (work context %v), want draining with its work told to stop", h.phase("x"), workCtx.Err())
	}
	done()
	h.round() // drained: still assigned, but lost: claimed again, and the fence refuses
	h.round()
	if h.phase("x") != claiming {
		t.Fatalf("x is %s, want claiming again", h.phase("x"))
	}
	h.f.mu.Lock()
	h.f.valid["x"] = time.Now().Add(time.Hour) // the fence is valid again, but x was not acquired
	h.f.mu.Unlock()
	if _, _, ok := h.c.StartClusterWork(t.Context(), "x"); ok {
		t.Error("work allowed on a lost cluster before it was acquired again")
	}
	h.f.setRefused("x", false)
	h.round()
	if h.phase("x") != active || !h.aware.engaged("x") {
		t.Errorf("x is %s, want active again once acquired", h.phase("x"))
	}
	if h.f.claimed["x"] < 2 {
		t.Error("x was worked on again without a new claim")
	}
}

// The engagements the coordinator makes carry its gate for their cluster (the gate a controller passes every
// reconcile of the engagement through): it lets work start while the cluster is owned, tells that work to stop when
// the cluster is drained, refuses new work then, and the cluster is released only once that work has returned.
func TestStateEngagementsCarryTheGate(t *testing.T) {
	h := newStateHarness(t, "x")
	h.round()
	h.aware.mu.Lock()
	gate := clusters.WorkGateFrom(h.aware.ctxs["x"])
	h.aware.mu.Unlock()
	if gate == nil {
		t.Fatal("the engagement of an owned cluster carries no gate")
	}
	workCtx, done, ok := gate.StartWork(t.Context())
	if !ok {
		t.Fatal("the gate of an owned cluster's engagement refused work")
	}

	h.assignAllTo("other")
	if h.phase("x") != draining || !ended(workCtx) {
		t.Fatalf("x is %s, work context %v: want draining with the work told to stop", h.phase("x"), workCtx.Err())
	}
	if _, _, ok := gate.StartWork(t.Context()); ok {
		t.Error("the gate of a drained cluster's engagement let new work start")
	}
	h.round()
	if h.phase("x") != draining {
		t.Fatalf("x is %s while work let in by the engagement's gate runs, want draining", h.phase("x"))
	}
	done()
	h.round()
	if h.phase("x") != idle {
		t.Errorf("x is %s after the work returned, want released (idle)", h.phase("x"))
	}
}

// If engaging an acquired cluster fails, it is drained and released, and claimed again only after a backoff.
func TestStateFailedActivationBacksOff(t *testing.T) {
	h := newStateHarness(t)
	h.aware.fail = errors.New("boom")
	if err := h.c.Engage(t.Context(), "x", opaqueCluster{}); err != nil {
		t.Fatal(err)
	}
	h.round() // claimed, acquired, engaging fails
	h.round() // drained, released
	h.round()
	if h.phase("x") != idle {
		t.Fatalf("x is %s after a failed activation, want idle", h.phase("x"))
	}
	claims := h.f.claimed["x"]
	for range 5 {
		h.round()
	}
	if h.f.claimed["x"] != claims {
		t.Error("x claimed again before its backoff passed")
	}
}

// A stopping replica drains and releases every cluster.
func TestStateStoppingReleasesEverything(t *testing.T) {
	h := newStateHarness(t, "x", "y")
	h.round()
	h.c.mu.Lock()
	h.c.state.stopping = true
	h.c.state.lastRehash = time.Time{}
	h.c.mu.Unlock()
	h.round()
	h.round()
	h.c.mu.Lock()
	idleAll := h.c.allIdleLocked()
	h.c.mu.Unlock()
	if !idleAll || h.aware.engaged("x") || h.aware.engaged("y") {
		t.Errorf("after stopping: all idle %v, x engaged %v, y engaged %v", idleAll, h.aware.engaged("x"), h.aware.engaged("y"))
	}
}

// assignTo is a sharder that gives every cluster to one peer.
type assignTo string

func (a assignTo) ShouldOwn(_ string, _ []sharder.PeerInfo, self sharder.PeerInfo) bool {
	return self.ID == string(a)
}

// ended waits a little for ctx to end (contexts derived with context.AfterFunc end asynchronously).
func ended(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}
