// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/internal/leases"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/sharder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// cuttable is a client of the host whose requests fail while cut is set: a replica partitioned from the host API
// server, or one whose process hangs.
type cuttable struct {
	cut atomic.Bool
	cli client.WithWatch
}

func (e *env) cuttableClient() *cuttable {
	c := &cuttable{}
	cfg := rest.CopyConfig(e.cfg)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			if c.cut.Load() {
				return nil, errors.New("cut off from the API server")
			}
			return rt.RoundTrip(req)
		})
	}
	cli, err := client.NewWithWatch(cfg, client.Options{})
	if err != nil {
		e.t.Fatal(err)
	}
	c.cli = cli
	return c
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// A replica cut off from the API server stops working on its clusters at its renew deadline, before the others
// can take them (they wait until its fence has not changed for the lease duration); when it can reach the API
// server again it claims clusters through the fences before working on any. No two replicas work on a cluster at
// once throughout.
func TestCutOffReplicaStopsAtItsRenewDeadline(t *testing.T) {
	e, leaks := newEnvWith(t, 12)
	cut := e.cuttableClient()
	a, b := e.start("a", cut.cli), e.start("b", nil)
	harness.Eventually(t, 30*time.Second, "the first split", func() bool { return e.settled(a, b) })
	a.work(workDuration)
	b.work(workDuration)
	ownedByA := a.c.Owned()

	cutAt := time.Now()
	lastRenewed := e.lastChange("fence-a")
	cut.cut.Store(true)
	// a's last renewal was at most leaseRenew before the cut, so it stops within the renew deadline of the cut.
	harness.Eventually(t, leaseDuration, "a to stop working on its clusters", func() bool {
		for _, name := range ownedByA {
			if _, done, ok := a.c.StartClusterWork(t.Context(), name); ok {
				done()
				return false
			}
		}
		return true
	})
	stoppedAfter := time.Since(cutAt)
	harness.Eventually(t, 4*leaseDuration, "b to own every cluster", func() bool { return len(b.c.Owned()) == 12 })
	takenAfter := time.Since(cutAt)
	renewed := lastRenewed()
	t.Logf("a stopped %s after the cut; b owned everything %s after it, %s after a's fence last changed",
		stoppedAfter.Round(time.Millisecond), takenAfter.Round(time.Millisecond), time.Since(renewed).Round(time.Millisecond))
	// Its renew deadline is at most leaseDuration-leaseRenew after the cut; allow for the polling, but it must stop
	// before anyone could take over (the lease duration).
	if stoppedAfter >= leaseDuration {
		t.Errorf("a stopped %s after the cut, not before the lease duration %s", stoppedAfter, leaseDuration)
	}

	cut.cut.Store(false)
	harness.Eventually(t, 30*time.Second, "a to be back", func() bool { return e.settled(a, b) })
	a.stop()
	b.stop()
	e.checkNoOverlap()
	leaks()
}

// A crashed replica leaves the membership the clusters are assigned over within the lease duration, even if the
// peer registry keeps listing it: the coordinator also requires a live fence (or, with per-cluster fences, a live
// heartbeat).
func TestCrashedReplicaLeavesTheMembership(t *testing.T) {
	for _, perCluster := range []bool{false, true} {
		t.Run(fmt.Sprintf("perClusterLease=%v", perCluster), func(t *testing.T) {
			e, leaks := newEnvWith(t, 12)
			peersAB := []sharder.PeerInfo{{ID: "a", Weight: 1}, {ID: "b", Weight: 1}}
			cut := e.cuttableClient()
			mode := sharded.WithPerClusterLease(perCluster)
			a := e.start("a", nil, mode, sharded.WithPeerRegistry(&registry{self: peersAB[0], peers: peersAB}))
			b := e.start("b", cut.cli, mode, sharded.WithPeerRegistry(&registry{self: peersAB[1], peers: peersAB}))
			harness.Eventually(t, 30*time.Second, "the first split", func() bool { return e.settled(a, b) })

			// b crashes: it cannot write anything any more, its fences stay as they were, and the registry still
			// lists it.
			crashed := time.Now()
			fence := "fence-b"
			if perCluster {
				fence = "fence.replica-b"
			}
			lastRenewed := e.lastChange(fence)
			cut.cut.Store(true)
			b.cancel()
			harness.Eventually(t, 4*leaseDuration, "a to own every cluster", func() bool { return len(a.c.Owned()) == 12 })
			renewed := lastRenewed()
			took := time.Since(renewed)
			t.Logf("a owned b's clusters %s after b crashed, %s after b's fence last changed",
				time.Since(crashed).Round(time.Millisecond), took.Round(time.Millisecond))
			// The bound is the Eventually above (a few lease durations); the time itself is a figure, not asserted:
			// on a loaded machine the lease's expiry is observed late.
			t.Logf("failover %s after b's fence last changed (lease duration %s, probe %s)", took.Round(time.Millisecond), leaseDuration, probe)
			a.stop()
			b.stop()
			leaks()
		})
	}
}

// A replica listed by the registry that never wrote a fence (it never started, or its fence was deleted) counts
// for one lease duration, then its share goes to the others.
func TestReplicaWithoutFenceLeavesTheMembership(t *testing.T) {
	e, leaks := newEnvWith(t, 12)
	ghostly := []sharder.PeerInfo{{ID: "a", Weight: 1}, {ID: "ghost", Weight: 1}}
	started := time.Now()
	a := e.start("a", nil, sharded.WithPeerRegistry(&registry{self: ghostly[0], peers: ghostly}))
	harness.Eventually(t, 4*leaseDuration, "a to own every cluster", func() bool { return len(a.c.Owned()) == 12 })
	if took := time.Since(started); took < leaseDuration {
		t.Errorf("a owned the ghost's share %s after it started, before the ghost's grace of one lease duration", took)
	}
	a.stop()
	leaks()
}

// registry is a peers.Registry with a fixed membership.
type registry struct {
	self  sharder.PeerInfo
	peers []sharder.PeerInfo
}

func (r *registry) Self() sharder.PeerInfo { return r.self }

func (r *registry) Snapshot() []sharder.PeerInfo { return r.peers }

func (r *registry) Run(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

// Liveness is judged by how long this replica has seen a fence unchanged, never by its renewTime: a fence whose
// renewTime is in the future but that never changes expires after the lease duration, and one whose renewTime is
// years in the past but that keeps changing stays live.
func TestFencesAreJudgedByObservedChangeNotClocks(t *testing.T) {
	leaks := leakCheck(t)
	e := newEnv(t)
	names := clusterNames(12)
	e.addClusters(names...)
	// The fake replicas' fences hold four clusters each; a alone is in the membership, so it wants every cluster.
	assigned := map[string][]string{"future": {"cluster-000", "cluster-001", "cluster-002", "cluster-003"}, "past": {"cluster-004", "cluster-005", "cluster-006", "cluster-007"}}

	// Two fake replicas' fences hold their shares: "future" claims to have renewed in 2100 and never changes,
	// "past" claims 2000 but is rewritten every 300ms.
	fake := func(id string, renew time.Time, held []string) *coordinationv1.Lease {
		l := &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: "fence-" + id,
				Labels:      map[string]string{sharded.LabelFence: "fence", sharded.LabelFenceKind: "replica"},
				Annotations: map[string]string{sharded.AnnotationClusters: leases.EncodeList(held)}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(id), LeaseDurationSeconds: ptr.To(int32(3)),
				RenewTime: ptr.To(metav1.NewMicroTime(renew))},
		}
		if err := e.cli.Create(t.Context(), l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	fake("future", time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC), assigned["future"])
	past := fake("past", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), assigned["past"])
	_ = names
	stop := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(300 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			past.Annotations["beat"] = time.Now().String()
			if err := e.cli.Update(t.Context(), past); err != nil {
				t.Errorf("renewing the fake fence: %v", err)
				return
			}
		}
	}()

	self := sharder.PeerInfo{ID: "a", Weight: 1}
	a := e.start("a", nil, sharded.WithPeerRegistry(&registry{self: self, peers: []sharder.PeerInfo{self}}))
	harness.Eventually(t, 3*leaseDuration, "a to own every cluster but those of the replica that keeps renewing", func() bool {
		return len(a.c.Owned()) == 8
	})
	harness.Consistently(t, 2*leaseDuration, "a never to own the share of the replica that keeps renewing", func() bool {
		for _, name := range a.c.Owned() {
			for _, p := range assigned["past"] {
				if name == multicluster.ClusterName(p) {
					return false
				}
			}
		}
		return true
	})
	a.stop()
	close(stop)
	<-stopped
	leaks()
}
