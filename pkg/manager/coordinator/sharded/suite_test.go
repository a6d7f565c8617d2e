// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/peers"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/sharder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{})
}

// Short timings, so that expiries happen within seconds: a fence is valid for 2s after a renewal (the renew
// deadline), and another replica's fence expires 3s after it last changed.
const (
	leaseDuration = 3 * time.Second
	leaseRenew    = time.Second
	throttle      = 50 * time.Millisecond
	probe         = 250 * time.Millisecond
	rehash        = 50 * time.Millisecond
)

// env is one test's sharded controller: a namespace of the host for its Leases, the fleet's cluster names, and
// the replicas.
type env struct {
	t        *testing.T
	ns       string
	cfg      *rest.Config
	cli      client.WithWatch
	log      *workLog
	mu       sync.Mutex
	clusters []multicluster.ClusterName
	replicas []*replica
}

// envs counts the envs created, so that a test run again (-count) gets a new namespace.
var envs atomic.Int32

// newEnv creates a namespace for the test's Leases.
func newEnv(t *testing.T) *env {
	t.Helper()
	h := fnv.New32a()
	_, _ = h.Write([]byte(t.Name()))
	ns := fmt.Sprintf("shard-%08x-%d", h.Sum32(), envs.Add(1))
	cfg := harness.Config(t, fleet, mcenvtest.HostName)
	cli, err := client.NewWithWatch(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	return &env{t: t, ns: ns, cfg: cfg, cli: cli, log: &workLog{}}
}

// fakeCluster is an opaque cluster: the coordinator never calls it.
type fakeCluster struct {
	cluster.Cluster
	name multicluster.ClusterName
}

// replica is one replica of the sharded controller, run in this process.
type replica struct {
	e        *env
	id       string
	c        *sharded.Coordinator
	aware    *aware
	cancel   context.CancelFunc
	done     chan struct{}
	mu       sync.Mutex
	clusters map[multicluster.ClusterName]context.CancelFunc
	workers  sync.WaitGroup
	stopWork context.CancelFunc
	w        uint32 // the weight, as last set
}

// weight returns the replica's weight.
func (r *replica) weight() uint32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return max(r.w, 1)
}

// setWeight changes the replica's weight.
func (r *replica) setWeight(w uint32) {
	r.mu.Lock()
	r.w = w
	r.mu.Unlock()
	if err := r.c.SetPeerWeight(w); err != nil {
		r.e.t.Fatal(err)
	}
}

// options returns the coordinator options of a replica of this env: its namespace, short timings, and a Lease
// registry with the given ID, built on cli.
func (e *env) options(cli client.Client, id string, weight uint32) []sharded.Option {
	return []sharded.Option{
		sharded.WithShardLease(e.ns, "fence"),
		sharded.WithLeaseTimings(leaseDuration, leaseRenew, throttle),
		sharded.WithSynchronizationIntervals(probe, rehash),
		sharded.WithPeerRegistry(peers.NewLeaseRegistry(cli, e.ns, "peer", id, weight, logf.Log.WithName(id))),
	}
}

// start starts a replica with the fleet's clusters engaged. cli is its client (nil: a watching client of the
// host); opts come after the env's.
func (e *env) start(id string, cli client.Client, opts ...sharded.Option) *replica {
	e.t.Helper()
	if cli == nil {
		cli = e.cli
	}
	return e.startCoordinator(id, sharded.New(cli, logf.Log.WithName(id), append(e.options(cli, id, 1), opts...)...))
}

// startWith starts a replica with exactly the options given, on the env's client.
func (e *env) startWith(id string, opts ...sharded.Option) *replica {
	e.t.Helper()
	return e.startCoordinator(id, sharded.New(e.cli, logf.Log.WithName(id), opts...))
}

func (e *env) startCoordinator(id string, c *sharded.Coordinator) *replica {
	r := &replica{e: e, id: id, c: c, aware: newAware(id, e.log), done: make(chan struct{}), clusters: map[multicluster.ClusterName]context.CancelFunc{}}
	c.AddAware(r.aware)
	e.mu.Lock()
	for _, name := range e.clusters {
		r.engage(name)
	}
	e.replicas = append(e.replicas, r)
	e.mu.Unlock()

	ctx, cancel := context.WithCancel(context.WithoutCancel(e.t.Context()))
	r.cancel = cancel
	go func() {
		defer close(r.done)
		if err := c.Runnable().Start(ctx); err != nil {
			e.t.Errorf("replica %s: %v", id, err)
		}
	}()
	e.t.Cleanup(r.stop)
	return r
}

// engage engages a cluster with the replica, as its provider would.
func (r *replica) engage(name multicluster.ClusterName) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.e.t.Context()))
	r.mu.Lock()
	r.clusters[name] = cancel
	r.mu.Unlock()
	if err := r.c.Engage(ctx, name, &fakeCluster{name: name}); err != nil {
		r.e.t.Errorf("replica %s: engaging %s: %v", r.id, name, err)
	}
}

// stop stops the replica gracefully and waits until it has released everything; it stops its workers too.
func (r *replica) stop() {
	r.cancel()
	<-r.done
	r.mu.Lock()
	stopWork := r.stopWork
	r.mu.Unlock()
	if stopWork != nil {
		stopWork()
	}
	r.workers.Wait()
	r.mu.Lock()
	for _, cancel := range r.clusters {
		cancel()
	}
	r.mu.Unlock()
}

// addClusters adds clusters to the fleet: every running replica's provider engages them.
func (e *env) addClusters(names ...multicluster.ClusterName) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.clusters = append(e.clusters, names...)
	for _, r := range e.replicas {
		for _, n := range names {
			r.engage(n)
		}
	}
}

// newEnvWith returns an environment with n clusters (clusterNames(n)) and the check, to call at the end of the
// test, that every goroutine started since has ended.
func newEnvWith(t *testing.T, n int) (*env, func()) {
	t.Helper()
	leaks := leakCheck(t)
	e := newEnv(t)
	e.addClusters(clusterNames(n)...)
	return e, leaks
}

// clusterNames returns n cluster names.
func clusterNames(n int) []multicluster.ClusterName {
	out := make([]multicluster.ClusterName, n)
	for i := range out {
		out[i] = multicluster.ClusterName(fmt.Sprintf("cluster-%03d", i))
	}
	return out
}

// aware records the engagements of one replica.
type aware struct {
	id  string
	log *workLog
	mu  sync.Mutex
	ctx map[multicluster.ClusterName]context.Context
}

func newAware(id string, log *workLog) *aware {
	return &aware{id: id, log: log, ctx: map[multicluster.ClusterName]context.Context{}}
}

func (a *aware) Engage(ctx context.Context, name multicluster.ClusterName, _ cluster.Cluster) error {
	a.mu.Lock()
	a.ctx[name] = ctx
	a.mu.Unlock()
	a.log.engaged(a.id, name)
	return nil
}

// engaged returns, sorted, the clusters the replica's Awares are engaged with now.
func (a *aware) engaged() []multicluster.ClusterName {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []multicluster.ClusterName
	for name, ctx := range a.ctx {
		if ctx.Err() == nil {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// interval is one piece of work a replica did on a cluster.
type interval struct {
	replica    string
	cluster    multicluster.ClusterName
	start, end time.Time
}

// workLog records the work of every replica and the engagements, for the checks.
type workLog struct {
	mu      sync.Mutex
	work    []interval
	engages []interval // start = engaged
}

func (l *workLog) engaged(replica string, name multicluster.ClusterName) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.engages = append(l.engages, interval{replica: replica, cluster: name, start: time.Now()})
}

func (l *workLog) record(iv interval) {
	l.mu.Lock()
	l.work = append(l.work, iv)
	l.mu.Unlock()
}

// overlaps returns every pair of work intervals of different replicas on the same cluster that overlap.
func (l *workLog) overlaps() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	by := map[multicluster.ClusterName][]interval{}
	for _, iv := range l.work {
		by[iv.cluster] = append(by[iv.cluster], iv)
	}
	var out []string
	for name, ivs := range by {
		slices.SortFunc(ivs, func(a, b interval) int { return a.start.Compare(b.start) })
		for i := range ivs {
			for j := i + 1; j < len(ivs) && ivs[j].start.Before(ivs[i].end); j++ {
				if ivs[j].replica != ivs[i].replica {
					out = append(out, fmt.Sprintf("cluster %s: %s [%s, %s] and %s [%s, %s]", name,
						ivs[i].replica, ivs[i].start.Format("15:04:05.000"), ivs[i].end.Format("15:04:05.000"),
						ivs[j].replica, ivs[j].start.Format("15:04:05.000"), ivs[j].end.Format("15:04:05.000")))
				}
			}
		}
	}
	return out
}

// work runs, until stopped, a worker per replica that keeps working on every cluster the replica may work on:
// each piece of work passes the coordinator's gate (as a controller's reconcile does), lasts d, and is recorded.
func (r *replica) work(d time.Duration) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.e.t.Context()))
	r.mu.Lock()
	r.stopWork = cancel
	r.mu.Unlock()
	for _, name := range r.e.allClusters() {
		r.workers.Go(func() {
			for ctx.Err() == nil {
				workCtx, done, ok := r.c.StartClusterWork(ctx, name)
				if !ok {
					select {
					case <-ctx.Done():
					case <-time.After(20 * time.Millisecond): // poll, as a queue would deliver the next request
					}
					continue
				}
				start := time.Now()
				select {
				case <-workCtx.Done():
				case <-time.After(d):
				}
				end := time.Now()
				done()
				r.e.log.record(interval{replica: r.id, cluster: name, start: start, end: end})
			}
		})
	}
}

func (e *env) allClusters() []multicluster.ClusterName {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.clusters)
}

// settled reports whether the replicas own the clusters as the default sharder assigns them over exactly these
// replicas (with their weights), and every replica's Awares are engaged with exactly the clusters it owns.
func (e *env) settled(rs ...*replica) bool {
	names := e.allClusters()
	ids := make([]string, len(names))
	for i, n := range names {
		ids[i] = n.String()
	}
	peers := make([]sharder.PeerInfo, len(rs))
	for i, r := range rs {
		peers[i] = sharder.PeerInfo{ID: r.id, Weight: r.weight()}
	}
	want := map[string][]multicluster.ClusterName{}
	for cl, owner := range sharder.NewBoundedHRW(0).Assign(ids, peers) {
		want[owner] = append(want[owner], multicluster.ClusterName(cl))
	}
	for _, r := range rs {
		slices.Sort(want[r.id])
		owned := r.c.Owned()
		if !slices.Equal(owned, want[r.id]) || !slices.Equal(owned, r.aware.engaged()) {
			return false
		}
	}
	return true
}

// fences reads the replica fences of the env from the API server, by holder: the clusters each lists as held.
func (e *env) fences() map[string][]string {
	list := &coordinationv1.LeaseList{}
	if err := e.cli.List(e.t.Context(), list, client.InNamespace(e.ns), client.MatchingLabels{sharded.LabelFence: "fence"}); err != nil {
		e.t.Fatal(err)
	}
	out := map[string][]string{}
	for _, l := range list.Items {
		holder := ""
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		v := strings.Trim(l.Annotations[sharded.AnnotationClusters], "[]")
		var names []string
		for _, n := range strings.Split(v, ",") {
			if n = strings.Trim(n, `"`); n != "" {
				names = append(names, n)
			}
		}
		out[holder] = names
	}
	return out
}

// lastChange follows a Lease from now on and returns a function that reports when it last saw it change (or now,
// if it never did). A replica cut off or killed may still have a write on its way: under load the API server can
// apply it seconds later, and the others rightly count the lease duration from there.
func (e *env) lastChange(name string) func() time.Time {
	ctx, cancel := context.WithCancel(e.t.Context())
	var mu sync.Mutex
	last, rv := time.Now(), ""
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			l := &coordinationv1.Lease{}
			if err := e.cli.Get(ctx, client.ObjectKey{Namespace: e.ns, Name: name}, l); err == nil {
				mu.Lock()
				if rv != "" && l.ResourceVersion != rv {
					last = time.Now()
				}
				rv = l.ResourceVersion
				mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() time.Time {
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		return last
	}
}

// checkNoOverlap fails the test if two replicas worked on a cluster at the same time.
func (e *env) checkNoOverlap() {
	e.t.Helper()
	for _, o := range e.log.overlaps() {
		e.t.Errorf("overlapping work: %s", o)
	}
}

// leakCheck returns a function that fails the test if goroutines started after it was created remain.
func leakCheck(t *testing.T) func() {
	ignore := goleak.IgnoreCurrent()
	return func() {
		t.Helper()
		opts := harness.LeakOptions(ignore)
		deadline := time.Now().Add(10 * time.Second)
		for goleak.Find(opts...) != nil && time.Now().Before(deadline) {
			select {
			case <-time.After(50 * time.Millisecond):
			case <-t.Context().Done():
				return
			}
		}
		goleak.VerifyNone(t, opts...)
	}
}
