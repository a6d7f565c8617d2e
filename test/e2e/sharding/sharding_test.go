// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharding

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/sharder"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{})
}

// Short timings keep the test within a couple of minutes: a replica stops working 3s after its last renewal, the
// others take its clusters 4s after they last saw its fence change.
const (
	leaseDuration = 4 * time.Second
	leaseRenew    = time.Second
	probe         = time.Second
	rehash        = 100 * time.Millisecond
	throttle      = 100 * time.Millisecond

	// fenceNS holds the fences and the peer Leases.
	fenceNS = "e2e-sharding"
	// testClusters is the number of namespaces with a ConfigMap "tick" that the test drives reconciles in.
	testClusters = 24
)

// e2e is the state of the end-to-end run.
type e2e struct {
	t          *testing.T
	cli        client.Client
	bin        string
	kubeconfig string
	j          *journal
	procs      map[string]*proc
	ticks      []string // the namespaces with a "tick"
	figures    []string
}

func (e *e2e) start(id string) *proc {
	p := startReplica(e.t, e.j, e.bin, e.kubeconfig, fenceNS, id)
	e.procs[id] = p
	return p
}

func (e *e2e) figuref(format string, args ...any) {
	e.figures = append(e.figures, fmt.Sprintf(format, args...))
}

// fences reads the replica fences: the clusters each replica's fence lists as held.
func (e *e2e) fences() map[string][]string {
	list := &coordinationv1.LeaseList{}
	if err := e.cli.List(e.t.Context(), list, client.InNamespace(fenceNS), client.MatchingLabels{sharded.LabelFence: "e2e-shard"}); err != nil {
		e.t.Fatal(err)
	}
	out := map[string][]string{}
	for _, l := range list.Items {
		if l.Spec.HolderIdentity == nil {
			continue
		}
		var held []string
		for _, c := range strings.Split(strings.Trim(l.Annotations[sharded.AnnotationClusters], "[]"), ",") {
			if c = strings.Trim(c, `"`); c != "" {
				held = append(held, c)
			}
		}
		out[*l.Spec.HolderIdentity] = held
	}
	return out
}

// namespaces lists the host's namespaces: the clusters of the fleet.
func (e *e2e) namespaces() []string {
	list := &corev1.NamespaceList{}
	if err := e.cli.List(e.t.Context(), list); err != nil {
		e.t.Fatal(err)
	}
	out := make([]string, 0, len(list.Items))
	for _, ns := range list.Items {
		out = append(out, ns.Name)
	}
	return out
}

// settled reports whether the fences of exactly the replicas ids hold the clusters as the default sharder assigns
// them over those replicas.
func (e *e2e) settled(ids ...string) bool {
	peers := make([]sharder.PeerInfo, len(ids))
	for i, id := range ids {
		peers[i] = sharder.PeerInfo{ID: id, Weight: 1}
	}
	want := map[string][]string{}
	for cl, owner := range sharder.NewBoundedHRW(0).Assign(e.namespaces(), peers) {
		want[owner] = append(want[owner], cl)
	}
	got := e.fences()
	for holder, held := range got {
		if len(held) > 0 && !slices.Contains(ids, holder) {
			return false
		}
	}
	for _, id := range ids {
		w, g := want[id], slices.Clone(got[id])
		slices.Sort(w)
		slices.Sort(g)
		if !slices.Equal(w, g) {
			return false
		}
	}
	return true
}

// load updates the "tick" ConfigMaps round robin, one every 25ms, while not paused, so that every cluster is
// reconciled about every 0.6s.
type load struct {
	paused atomic.Bool
	stop   chan struct{}
	done   chan struct{}
}

func (e *e2e) startLoad() *load {
	l := &load{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		tick := time.NewTicker(25 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-l.stop:
				return
			case <-tick.C:
			}
			if l.paused.Load() {
				continue
			}
			ns := e.ticks[i%len(e.ticks)]
			cm := &corev1.ConfigMap{}
			if err := e.cli.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "tick"}, cm); err != nil {
				continue
			}
			cm.Data = map[string]string{"n": strconv.Itoa(i)}
			_ = e.cli.Update(context.Background(), cm)
		}
	}()
	return l
}

// handoffs measures, for the clusters that left a replica after t (it logged draining them), the time from that
// decision to the new owner's first reconcile, against the bound of 1s plus the drain (decision to release).
func (e *e2e) handoffs(phase string, after time.Time) {
	e.t.Helper()
	// The new owners' first reconciles may come a little after the fences show the new split.
	harness.Eventually(e.t, 10*time.Second, phase+": every cluster moved to be reconciled by its new owner", func() bool {
		recs, events := e.j.snapshot()
		for _, d := range events {
			if !d.at.After(after) || !strings.HasPrefix(d.msg, "Draining cluster") || !slices.Contains(e.ticks, d.cluster) {
				continue
			}
			if _, ok := firstStart(recs, d.cluster, d.at, d.replica); !ok {
				return false
			}
		}
		return true
	})
	recs, events := e.j.snapshot()
	var worst, worstRelease time.Duration
	n := 0
	for _, d := range events {
		if !d.at.After(after) || !strings.HasPrefix(d.msg, "Draining cluster") || !slices.Contains(e.ticks, d.cluster) {
			continue
		}
		var released *event
		for i, r := range events {
			if r.replica == d.replica && r.cluster == d.cluster && r.msg == "Released cluster" && !r.at.Before(d.at) {
				released = &events[i]
				break
			}
		}
		if released == nil {
			e.t.Errorf("%s: replica %s drained %s and never released it", phase, d.replica, d.cluster)
			continue
		}
		// The release is logged once the round that wrote it is over: the new owner may start before the line.
		next, ok := firstStart(recs, d.cluster, d.at, d.replica)
		if !ok {
			e.t.Errorf("%s: nobody reconciled %s after %s gave it up", phase, d.cluster, d.replica)
			continue
		}
		n++
		handoff, drain := next.start.Sub(d.at), released.at.Sub(d.at)
		if handoff > time.Second+drain {
			e.t.Errorf("%s: %s moved from %s to %s in %s, more than 1s plus its drain of %s", phase, d.cluster, d.replica, next.replica, handoff, drain)
		}
		worst = max(worst, handoff-drain)
		worstRelease = max(worstRelease, next.start.Sub(released.at)) // negative if the new owner started before the log line
	}
	if n == 0 {
		e.t.Errorf("%s: no cluster moved", phase)
	}
	e.figuref("%s: %d clusters moved; new owner's first reconcile at most %s after the old owner's decision beyond the drain, at most %s after the release",
		phase, n, worst.Round(time.Millisecond), worstRelease.Round(time.Millisecond))
}

// takeovers measures, for the clusters that replica id held at t, the time from t to another replica's first
// reconcile, against the bound of the lease duration plus one probe. The bound counts from the last change of the
// replica's fence if that came after t: a write the replica sent just before the signal can reach the API server
// later on a loaded machine, and the others rightly count the lease duration from then.
func (e *e2e) takeovers(phase, id string, held []string, t time.Time, lastRenewed func() time.Time) {
	e.t.Helper()
	from := t
	var worst, worstAcquired time.Duration
	n := 0
	for _, cl := range held {
		if !slices.Contains(e.ticks, cl) {
			continue
		}
		harness.Eventually(e.t, 3*leaseDuration, phase+": "+cl+" reconciled by another replica", func() bool {
			recs, _ := e.j.snapshot()
			_, ok := firstStart(recs, cl, t, id)
			return ok
		})
		recs, events := e.j.snapshot()
		next, _ := firstStart(recs, cl, t, id)
		took := next.start.Sub(t)
		worst = max(worst, took)
		n++
		for _, ev := range events {
			if ev.replica == next.replica && ev.cluster == cl && ev.msg == "Acquired cluster" && ev.at.After(t) && !ev.at.After(next.start) {
				worstAcquired = max(worstAcquired, ev.at.Sub(t))
			}
		}
		if bound := leaseDuration + probe; took > bound {
			if late := lastRenewed(); late.After(from) {
				from = late
			}
			if next.start.Sub(from) > bound {
				e.t.Errorf("%s: %s reconciled by %s %s after, %s after %s's fence last changed, more than the lease duration plus a probe (%s)",
					phase, cl, next.replica, took, next.start.Sub(from), id, bound)
			}
		}
	}
	e.figuref("%s: %d clusters of %s acquired by a survivor at most %s after, reconciled at most %s after (bound %s)",
		phase, n, id, worstAcquired.Round(time.Millisecond), worst.Round(time.Millisecond), leaseDuration+probe)
}

// leaseWrites returns the Lease writes the host API server has served, from its metrics.
func (e *e2e) leaseWrites() float64 {
	cs, err := kubernetes.NewForConfig(harness.Config(e.t, fleet, mcenvtest.HostName))
	if err != nil {
		e.t.Fatal(err)
	}
	raw, err := cs.RESTClient().Get().AbsPath("/metrics").DoRaw(e.t.Context())
	if err != nil {
		e.t.Fatal(err)
	}
	var n float64
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `resource="leases"`) {
			continue
		}
		write := false
		for _, verb := range []string{"POST", "PUT", "PATCH", "DELETE", "APPLY"} {
			write = write || strings.Contains(line, `verb="`+verb+`"`)
		}
		if !write {
			continue
		}
		f := strings.Fields(line)
		if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
			n += v
		}
	}
	return n
}

// createNamespaces creates namespaces, with a "tick" ConfigMap if tick is set, 8 at a time.
func (e *e2e) createNamespaces(names []string, tick bool) {
	e.t.Helper()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for _, name := range names {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := e.cli.Create(e.t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
				e.t.Errorf("creating namespace %s: %v", name, err)
				return
			}
			if tick {
				if err := e.cli.Create(e.t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: "tick"}, Data: map[string]string{"n": "0"}}); err != nil {
					e.t.Errorf("creating the tick of %s: %v", name, err)
				}
			}
		})
	}
	wg.Wait()
}

// Three replicas of a sharded controller, each an OS process, reconcile 24 namespaces-as-clusters of one host API
// server under continuous load while the test SIGKILLs one, SIGSTOPs another for longer than the lease duration
// and continues it, starts a fourth and stops one gracefully; then three replicas take 1,000 clusters. From every
// replica's record of its reconciles: no two replicas ever reconciled a cluster at the same time; a killed or
// frozen replica's clusters were reconciled by a survivor within the lease duration plus one probe; a frozen
// replica, continued, reconciled nothing it had not acquired again; voluntary handoffs took at most 1s beyond the
// drain; and at 1,000 clusters each replica owned its third within 10%, with at most 10 Lease writes a second.
func TestShardingEndToEnd(t *testing.T) {
	e := &e2e{t: t, cli: harness.Client(t, fleet, mcenvtest.HostName), j: newJournal(), procs: map[string]*proc{}}
	e.createNamespaces([]string{fenceNS}, false)
	for i := range testClusters {
		e.ticks = append(e.ticks, fmt.Sprintf("e2e-%02d", i))
	}
	e.createNamespaces(e.ticks, true)
	e.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	if err := fleet.WriteKubeconfig(e.kubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	e.bin = buildReplica(t)

	began := time.Now()
	r1, r2, r3 := e.start("r1"), e.start("r2"), e.start("r3")
	harness.Eventually(t, 60*time.Second, "r1, r2 and r3 to split the fleet", func() bool { return e.settled("r1", "r2", "r3") })
	e.figuref("start: 3 replicas split %d clusters in %s (process start included)", len(e.namespaces()), time.Since(began).Round(time.Millisecond))
	l := e.startLoad()
	defer func() {
		close(l.stop)
		<-l.done
	}()
	harness.Eventually(t, 30*time.Second, "every test cluster reconciled", func() bool {
		recs, _ := e.j.snapshot()
		for _, cl := range e.ticks {
			if _, ok := firstStart(recs, cl, time.Time{}, ""); !ok {
				return false
			}
		}
		return true
	})

	// SIGKILL r1: a survivor reconciles each of its clusters within the lease duration plus a probe.
	held := e.fences()["r1"]
	renewedR1 := e.lastChange("e2e-shard-r1")
	killed := time.Now()
	r1.signal(t, syscall.SIGKILL)
	r1.wait(t, 10*time.Second)
	e.j.closeOpen("r1", killed)
	e.takeovers("SIGKILL r1", "r1", held, killed, renewedR1)
	harness.Eventually(t, 30*time.Second, "r2 and r3 to split the fleet", func() bool { return e.settled("r2", "r3") })

	// SIGSTOP r2 for longer than the lease duration, while it reconciles nothing (a reconcile frozen half-way
	// would resume when the process does: no Lease can stop a frozen process, see docs/sharding.md).
	l.paused.Store(true)
	held = e.fences()["r2"]
	renewedR2 := e.lastChange("e2e-shard-r2")
	frozen := e.freezeIdle(r2)
	l.paused.Store(false)
	e.takeovers("SIGSTOP r2", "r2", held, frozen, renewedR2)
	pause := leaseDuration + 2*time.Second
	if rest := pause - time.Since(frozen); rest > 0 {
		select {
		case <-time.After(rest): // the process stays frozen this long: a fault, not a wait for a condition
		case <-t.Context().Done():
		}
	}
	continued := time.Now()
	r2.signal(t, syscall.SIGCONT)
	harness.Eventually(t, 30*time.Second, "r2 back, and r2 and r3 splitting the fleet", func() bool { return e.settled("r2", "r3") })
	e.checkContinued("r2", continued)
	e.figuref("SIGSTOP r2 for %s, then SIGCONT: back in the split %s later", continued.Sub(frozen).Round(time.Millisecond), time.Since(continued).Round(time.Millisecond))

	// A fourth replica joins: clusters move to it with a handoff of at most 1s beyond the drain.
	joined := time.Now()
	e.start("r4")
	harness.Eventually(t, 60*time.Second, "r2, r3 and r4 to split the fleet", func() bool { return e.settled("r2", "r3", "r4") })
	e.figuref("r4 joins: split settled %s after its process started", time.Since(joined).Round(time.Millisecond))
	e.handoffs("r4 joins", joined)

	// r3 stops gracefully (SIGTERM): it drains and releases its clusters, which move at once.
	stopping := time.Now()
	r3.signal(t, syscall.SIGTERM)
	harness.Eventually(t, 30*time.Second, "r2 and r4 to split the fleet", func() bool { return e.settled("r2", "r4") })
	e.figuref("r3 stops: split settled %s after SIGTERM", time.Since(stopping).Round(time.Millisecond))
	r3.wait(t, 30*time.Second)
	e.handoffs("r3 stops", stopping)

	// 1,000 clusters over three replicas: balance within 10%, and Lease writes at the API server.
	e.start("r5")
	var more []string
	for i := len(e.namespaces()); i < 1000; i++ {
		more = append(more, fmt.Sprintf("e2e-scale-%03d", i))
	}
	e.createNamespaces(more, false)
	harness.Eventually(t, 120*time.Second, "r2, r4 and r5 to split 1,000 clusters", func() bool { return e.settled("r2", "r4", "r5") })
	for id, held := range e.fences() {
		if n := float64(len(held)); n > 0 && (n < 1000.0/3*0.9 || n > 1000.0/3*1.1) {
			t.Errorf("at 1,000 clusters replica %s holds %v, more than 10%% off a third", id, n)
		}
	}
	before, from := e.leaseWrites(), time.Now()
	harness.Consistently(t, 10*time.Second, "the split of 1,000 clusters to hold", func() bool { return e.settled("r2", "r4", "r5") })
	rate := (e.leaseWrites() - before) / time.Since(from).Seconds()
	sizes := map[string]int{}
	for id, held := range e.fences() {
		sizes[id] = len(held)
	}
	e.figuref("1,000 clusters over 3 replicas (renew every %s): held %v; %.1f Lease writes/s at the API server", leaseRenew, sizes, rate)
	if rate > 10 {
		t.Errorf("%.1f Lease writes/s at 1,000 clusters, more than 10", rate)
	}

	for _, id := range []string{"r2", "r4", "r5"} {
		e.procs[id].signal(t, syscall.SIGTERM)
	}
	for _, id := range []string{"r2", "r4", "r5"} {
		e.procs[id].wait(t, 30*time.Second)
	}

	recs, _ := e.j.snapshot()
	for _, o := range overlaps(recs) {
		t.Errorf("overlapping reconciles: %s", o)
	}
	perReplica := map[string]int{}
	for _, r := range recs {
		perReplica[r.replica]++
	}
	e.figuref("%d reconciles recorded %v, none of a cluster overlapping another replica's", len(recs), perReplica)
	sort.Strings(e.figures)
	for _, f := range e.figures {
		t.Log(f)
	}
}

// lastChange follows a fence Lease from now on; the returned function reports when it last saw it change (or the
// zero time), and keeps following until the test ends.
func (e *e2e) lastChange(name string) func() time.Time {
	var mu sync.Mutex
	var last time.Time
	rv := ""
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			l := &coordinationv1.Lease{}
			if err := e.cli.Get(e.t.Context(), client.ObjectKey{Namespace: fenceNS, Name: name}, l); err == nil {
				mu.Lock()
				if rv != "" && l.ResourceVersion != rv {
					last = time.Now()
				}
				rv = l.ResourceVersion
				mu.Unlock()
			}
			select {
			case <-e.t.Context().Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return last
	}
}

// freezeIdle SIGSTOPs a replica at a moment it runs no reconcile, and returns when. A reconcile may start between
// the test's look and the signal, so after stopping the process the test reads everything it wrote before it
// stopped; if a reconcile was running, it continues the process and tries again.
func (e *e2e) freezeIdle(p *proc) time.Time {
	e.t.Helper()
	for range 20 {
		harness.Eventually(e.t, 30*time.Second, p.id+" to be idle", func() bool {
			return !e.j.open(p.id) && time.Since(e.j.lastStart(p.id)) > 300*time.Millisecond
		})
		frozen := time.Now()
		p.signal(e.t, syscall.SIGSTOP)
		// A stopped process writes nothing more: once its output has been quiet for a while, it has all been read.
		harness.Eventually(e.t, 10*time.Second, p.id+"'s output to be read", func() bool {
			return e.j.quietSince(p.id) > 300*time.Millisecond
		})
		if !e.j.open(p.id) {
			return frozen
		}
		e.t.Logf("%s was stopped in the middle of a reconcile; continuing it and trying again", p.id)
		p.signal(e.t, syscall.SIGCONT)
	}
	e.t.Fatalf("could not stop %s while it was idle", p.id)
	return time.Time{}
}

// checkContinued checks that a replica continued after a freeze reconciled a cluster only after acquiring it again.
func (e *e2e) checkContinued(id string, continued time.Time) {
	e.t.Helper()
	recs, events := e.j.snapshot()
	lost := 0
	for _, ev := range events {
		if ev.replica == id && strings.HasPrefix(ev.msg, "Lost cluster") && !ev.at.Before(continued.Add(-time.Second)) {
			lost++
		}
	}
	if lost == 0 {
		e.t.Errorf("%s did not report losing its clusters when continued", id)
	}
	for _, r := range recs {
		if r.replica != id || !r.start.After(continued) {
			continue
		}
		acquired := false
		for _, ev := range events {
			if ev.replica == id && ev.cluster == r.cluster && ev.msg == "Acquired cluster" && ev.at.After(continued) && !ev.at.After(r.start) {
				acquired = true
				break
			}
		}
		if !acquired {
			e.t.Errorf("%s reconciled %s at %s after it was continued, without acquiring it again", id, r.cluster, r.start.Format("15:04:05.000"))
		}
	}
	e.figuref("%s, continued: lost %d clusters at once, reconciled only clusters it acquired again", id, lost)
}
