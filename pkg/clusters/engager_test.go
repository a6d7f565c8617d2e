// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Hosts with a meaning for the constructor of engagerFixture.
const (
	// stuckHost names a cluster whose cache never syncs.
	stuckHost = "https://stuck"
	// unbuildableHost names a cluster that cannot be built.
	unbuildableHost = "https://unbuildable"
)

// builtCluster is a fake cluster built by engagerFixture: its cache syncs at once (never, for stuckHost), and its
// Start blocks until its context ends, or fails when fail is closed.
type builtCluster struct {
	cluster.Cluster
	cfg  *rest.Config
	fail chan struct{}

	mu  sync.Mutex
	ctx context.Context
}

func (c *builtCluster) GetConfig() *rest.Config { return c.cfg }

func (c *builtCluster) GetCache() cache.Cache {
	if c.cfg.Host == stuckHost {
		return stuckCache{}
	}
	return syncedCache{}
}

func (c *builtCluster) Start(ctx context.Context) error {
	c.mu.Lock()
	c.ctx = ctx
	c.mu.Unlock()
	select {
	case <-ctx.Done():
		return nil
	case <-c.fail:
		return errors.New("the cluster failed")
	}
}

// stopped reports whether the cluster was started and its context has ended.
func (c *builtCluster) stopped() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx != nil && c.ctx.Err() != nil
}

// stuckCache is a cache whose sync waits for its context.
type stuckCache struct{ cache.Cache }

func (stuckCache) WaitForCacheSync(ctx context.Context) bool {
	<-ctx.Done()
	return false
}

// engagerFixture is an engager whose clusters are builtClusters, with what it built and reported.
type engagerFixture struct {
	*clusters.Engager
	aware *harness.Engagements

	mu       sync.Mutex
	built    map[multicluster.ClusterName][]*builtCluster
	outcomes []clusters.Outcome
}

// newEngagerFixture returns an engager for opts, building fake clusters, and an Aware to start it with.
func newEngagerFixture(opts clusters.EngagerOptions) *engagerFixture {
	f := &engagerFixture{aware: harness.NewEngagements(), built: map[multicluster.ClusterName][]*builtCluster{}}
	opts.NewCluster = func(_ context.Context, name multicluster.ClusterName, t clusters.Target, _ ...cluster.Option) (cluster.Cluster, error) {
		if t.Config.Host == unbuildableHost {
			return nil, fmt.Errorf("no cluster at %s with token %s", t.Config.Host, t.Config.BearerToken)
		}
		cl := &builtCluster{cfg: t.Config, fail: make(chan struct{})}
		f.mu.Lock()
		f.built[name] = append(f.built[name], cl)
		f.mu.Unlock()
		return cl, nil
	}
	onOutcome := opts.OnOutcome
	opts.OnOutcome = func(o clusters.Outcome) {
		f.mu.Lock()
		f.outcomes = append(f.outcomes, o)
		f.mu.Unlock()
		if onOutcome != nil {
			onOutcome(o)
		}
	}
	f.Engager = clusters.NewEngager(opts)
	return f
}

// start runs the engager until the test ends; the returned function stops it and waits for Start to return.
func (f *engagerFixture) start(t *testing.T) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- f.Start(ctx, f.aware) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Start returned %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// kinds returns the kinds of the outcomes reported for name, in order.
func (f *engagerFixture) kinds(name multicluster.ClusterName) []clusters.OutcomeKind {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []clusters.OutcomeKind
	for _, o := range f.outcomes {
		if o.Name == name {
			out = append(out, o.Kind)
		}
	}
	return out
}

// failures returns the failures reported for name.
func (f *engagerFixture) failures(name multicluster.ClusterName) []clusters.Outcome {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []clusters.Outcome
	for _, o := range f.outcomes {
		if o.Name == name && o.Kind == clusters.OutcomeFailed {
			out = append(out, o)
		}
	}
	return out
}

// clustersBuilt returns the clusters built for name, in order.
func (f *engagerFixture) clustersBuilt(name multicluster.ClusterName) []*builtCluster {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.built[name])
}

// hostOf returns the host of the cluster engaged under name, or "".
func (f *engagerFixture) hostOf(name multicluster.ClusterName) string {
	if cl := f.aware.Cluster(name); cl != nil {
		return cl.GetConfig().Host
	}
	return ""
}

func config(host string) clusters.Target {
	return clusters.Target{Config: &rest.Config{Host: host}}
}

// A cluster's life through an engager: wanted, it is engaged; wanted again alike, nothing changes; wanted with
// another config, it is replaced, the new cluster engaged while the old one still runs and the old one stopped
// after; removed, it is disengaged and stopped before Remove returns. Every step is reported.
func TestEngagerLifecycle(t *testing.T) {
	f := newEngagerFixture(clusters.EngagerOptions{})
	f.start(t)

	f.Want("a", config("https://one"))
	f.aware.WaitFor(t, 0, "a engaged", func() bool { return f.hostOf("a") == "https://one" })
	first, firstCtx := f.aware.Cluster("a"), f.aware.Context("a")
	if got := f.ClusterNames(); !slices.Equal(got, []multicluster.ClusterName{"a"}) {
		t.Errorf("ClusterNames() = %v, want [a]", got)
	}
	harness.Eventually(t, 0, "Added reported", func() bool { return slices.Contains(f.kinds("a"), clusters.OutcomeAdded) })

	f.Want("a", config("https://one"))
	if got := f.kinds("a"); got[len(got)-1] != clusters.OutcomeUnchanged {
		t.Errorf("wanting the same config again reported %v, want Unchanged last", got)
	}

	var oldAliveAtReplace bool
	f.aware.Refuse = func(_ context.Context, _ multicluster.ClusterName, cl cluster.Cluster) error {
		if cl.GetConfig().Host == "https://two" {
			oldAliveAtReplace = firstCtx.Err() == nil
		}
		return nil
	}
	f.Want("a", config("https://two"))
	f.aware.WaitFor(t, 0, "a replaced", func() bool { return f.hostOf("a") == "https://two" })
	harness.Eventually(t, 0, "Replaced reported", func() bool { return slices.Contains(f.kinds("a"), clusters.OutcomeReplaced) })
	if !oldAliveAtReplace {
		t.Error("the old cluster was stopped before its replacement was engaged")
	}
	harness.Eventually(t, 0, "the replaced cluster stopped", func() bool {
		return firstCtx.Err() != nil && f.clustersBuilt("a")[0].stopped()
	})
	if f.aware.Cluster("a") == first {
		t.Error("the replaced cluster is still engaged")
	}
	if got := f.aware.Count(); got != 2 {
		t.Errorf("%d engagements, want 2", got)
	}

	secondCtx := f.aware.Context("a")
	f.Remove("a")
	if secondCtx.Err() == nil {
		t.Error("the cluster's context did not end when Remove returned")
	}
	if _, err := f.Get(t.Context(), "a"); !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Errorf("Get after Remove: %v, want ErrClusterNotFound", err)
	}
	if got := f.ClusterNames(); len(got) != 0 {
		t.Errorf("ClusterNames() after Remove = %v", got)
	}
	if got := f.kinds("a"); got[len(got)-1] != clusters.OutcomeRemoved {
		t.Errorf("outcomes %v, want Removed last", got)
	}
}

// A change of what a name should be while an attempt is in flight aborts the attempt: a cluster whose cache would
// wait an hour to sync is stopped at once, and the new config engaged.
func TestEngagerSupersedesAStaleAttempt(t *testing.T) {
	set := clusters.New[cluster.Cluster]()
	set.WaitCacheTimeout = time.Hour
	f := newEngagerFixture(clusters.EngagerOptions{Clusters: &set})
	f.start(t)

	f.Want("a", config(stuckHost))
	harness.Eventually(t, 0, "the stuck attempt in flight", func() bool { return len(f.clustersBuilt("a")) == 1 })
	if _, err := f.Get(t.Context(), "a"); err != nil {
		t.Errorf("a cluster whose attempt is in flight is not gettable: %v", err)
	}
	if got := f.ClusterNames(); len(got) != 0 {
		t.Errorf("a cluster whose cache has not synced is listed: %v", got)
	}

	f.Want("a", config("https://good"))
	f.aware.WaitFor(t, 0, "the new config engaged", func() bool { return f.hostOf("a") == "https://good" })
	harness.Eventually(t, 0, "the stuck cluster stopped", func() bool { return f.clustersBuilt("a")[0].stopped() })
	if failures := f.failures("a"); len(failures) != 0 {
		t.Errorf("the aborted attempt was reported as a failure: %v", failures[0].Err)
	}

	// Removing a name whose attempt is in flight aborts it too.
	f.Want("b", config(stuckHost))
	harness.Eventually(t, 0, "b in flight", func() bool { return len(f.clustersBuilt("b")) == 1 })
	f.Remove("b")
	harness.Eventually(t, 0, "b's cluster stopped", func() bool { return f.clustersBuilt("b")[0].stopped() })
	if _, err := f.Get(t.Context(), "b"); !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Errorf("Get(b) after Remove: %v", err)
	}
}

// Failed attempts are retried after RetryDelay, doubling, at most MaxRetryDelay apart (with at most 10% jitter),
// and reported with their error and delay; each failed attempt's cluster is stopped. A change of config while a
// retry waits is tried at once.
func TestEngagerRetriesOnOnePolicy(t *testing.T) {
	const delay, maxDelay = 20 * time.Millisecond, 50 * time.Millisecond
	f := newEngagerFixture(clusters.EngagerOptions{RetryDelay: delay, MaxRetryDelay: maxDelay})
	refusals := 3
	var mu sync.Mutex
	f.aware.Refuse = func(context.Context, multicluster.ClusterName, cluster.Cluster) error {
		mu.Lock()
		defer mu.Unlock()
		if refusals > 0 {
			refusals--
			return errors.New("refused")
		}
		return nil
	}
	f.start(t)

	f.Want("a", config("https://one"))
	f.aware.WaitFor(t, 0, "a engaged after three failures", func() bool { return f.hostOf("a") == "https://one" })
	failures := f.failures("a")
	if len(failures) != 3 {
		t.Fatalf("%d failures reported, want 3", len(failures))
	}
	for i, want := range []time.Duration{delay, 2 * delay, maxDelay} {
		got := failures[i].RetryIn
		if got < want || got > want+want/10 {
			t.Errorf("retry %d after %s, want %s (+10%%)", i+1, got, want)
		}
		if !strings.Contains(failures[i].Err.Error(), `"a"`) || !strings.Contains(failures[i].Err.Error(), "refused") {
			t.Errorf("failure %q does not name the cluster and the cause", failures[i].Err)
		}
	}
	built := f.clustersBuilt("a")
	for _, cl := range built[:3] {
		if !cl.stopped() {
			t.Error("the cluster of a failed attempt was not stopped")
		}
	}

	// A retry an hour away is not waited for when the config changes.
	slow := newEngagerFixture(clusters.EngagerOptions{RetryDelay: time.Hour})
	slow.start(t)
	slow.Want("b", config(unbuildableHost))
	harness.Eventually(t, 0, "b failed", func() bool { return len(slow.failures("b")) == 1 })
	slow.Want("b", config("https://fixed"))
	slow.aware.WaitFor(t, 0, "b engaged at once", func() bool { return slow.hostOf("b") == "https://fixed" })
}

// The defaults of the retry policy: one second, doubling, two minutes at most.
func TestEngagerRetryDefaults(t *testing.T) {
	if clusters.DefaultRetryDelay != time.Second || clusters.DefaultMaxRetryDelay != 2*time.Minute ||
		clusters.RetryFactor != 2 || clusters.RetryJitter != 0.1 {
		t.Errorf("retry policy %s→%s ×%d ±%g", clusters.DefaultRetryDelay, clusters.DefaultMaxRetryDelay,
			clusters.RetryFactor, clusters.RetryJitter)
	}
}

// A wanted cluster that stops on its own (its Start fails) is built and engaged again after the retry delay.
func TestEngagerRebuildsAClusterThatStops(t *testing.T) {
	f := newEngagerFixture(clusters.EngagerOptions{RetryDelay: 10 * time.Millisecond})
	f.start(t)
	f.Want("a", config("https://one"))
	f.aware.WaitFor(t, 0, "a engaged", func() bool { return f.aware.Cluster("a") != nil })
	first := f.aware.Cluster("a")
	close(f.clustersBuilt("a")[0].fail)
	f.aware.WaitFor(t, 0, "a engaged again", func() bool { cl := f.aware.Cluster("a"); return cl != nil && cl != first })
	failures := f.failures("a")
	if len(failures) == 0 || !strings.Contains(failures[0].Err.Error(), "stopped") {
		t.Errorf("the stop was not reported as a failure: %v", failures)
	}
}

// RunOnce engages what it is given, in parallel, without retrying: it returns the failures, naming their clusters,
// and the next call tries them again, removes what is no longer given and replaces what changed. Its clusters live
// until its context ends. It does not run beside Start.
func TestEngagerRunOnce(t *testing.T) {
	f := newEngagerFixture(clusters.EngagerOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	err := f.RunOnce(ctx, f.aware, map[multicluster.ClusterName]clusters.Target{"a": config("https://a"), "b": config(unbuildableHost)})
	if err == nil || !strings.Contains(err.Error(), `"b"`) {
		t.Fatalf("RunOnce returned %v, want an error naming b", err)
	}
	if got := f.aware.Names(); !slices.Equal(got, []multicluster.ClusterName{"a"}) {
		t.Fatalf("engaged %v, want [a]", got)
	}
	if len(f.failures("b")) != 1 {
		t.Errorf("b failed %d times, want once (no retry)", len(f.failures("b")))
	}

	err = f.RunOnce(ctx, f.aware, map[multicluster.ClusterName]clusters.Target{"a": config("https://a"), "b": config("https://b")})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.ClusterNames(); !slices.Equal(got, []multicluster.ClusterName{"a", "b"}) {
		t.Fatalf("ClusterNames() = %v, want [a b]", got)
	}
	if got := f.aware.Count(); got != 2 {
		t.Errorf("%d engagements, want 2 (a unchanged)", got)
	}

	if err := f.RunOnce(ctx, f.aware, map[multicluster.ClusterName]clusters.Target{"b": config("https://b2")}); err != nil {
		t.Fatal(err)
	}
	f.aware.WaitFor(t, 0, "a removed and b replaced", func() bool {
		return slices.Equal(f.aware.Names(), []multicluster.ClusterName{"b"}) && f.hostOf("b") == "https://b2"
	})

	stop := f.start(t)
	// Until Start runs, RunOnce may (and changes nothing); once it does, RunOnce fails.
	harness.Eventually(t, 0, "RunOnce refused beside Start", func() bool {
		return f.RunOnce(ctx, f.aware, map[multicluster.ClusterName]clusters.Target{"b": config("https://b2")}) != nil
	})
	stop()

	cancel()
	f.aware.WaitFor(t, 0, "every cluster disengaged with the context of RunOnce", func() bool { return len(f.aware.Names()) == 0 })
}

// A component reacting to an engagement finds the cluster listed: ClusterNames lists it from when it is handed
// on.
func TestEngagerListsAClusterBeingEngaged(t *testing.T) {
	f := newEngagerFixture(clusters.EngagerOptions{})
	listed := make(chan bool, 1)
	f.aware.Refuse = func(_ context.Context, name multicluster.ClusterName, _ cluster.Cluster) error {
		listed <- slices.Contains(f.ClusterNames(), name)
		return nil
	}
	f.start(t)
	f.Want("a", config("https://one"))
	if !<-listed {
		t.Error("the cluster was not listed while it was being engaged")
	}
}

// What is wanted before Start is engaged when Start runs; a second Start beside the first fails; when Start's
// context ends, every cluster it engaged is stopped and forgotten before Start returns, and nothing is left
// running.
func TestEngagerStartAndStop(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	f := newEngagerFixture(clusters.EngagerOptions{RetryDelay: time.Hour})
	for i := range 10 {
		f.Want(multicluster.ClusterName(fmt.Sprintf("c%d", i)), config(fmt.Sprintf("https://c%d", i)))
	}
	f.Want("failing", config(unbuildableHost))
	f.Want("stuck", config(stuckHost))
	if got := f.aware.Count(); got != 0 {
		t.Fatalf("%d engagements before Start", got)
	}
	stop := f.start(t)
	f.aware.WaitFor(t, 0, "ten clusters engaged", func() bool { return len(f.aware.Names()) == 10 })
	harness.Eventually(t, 0, "the failing one waiting for its retry", func() bool { return len(f.failures("failing")) == 1 })
	if err := f.Start(t.Context(), f.aware); err == nil {
		t.Error("a second Start succeeded")
	}

	stop()
	if got := f.ClusterNames(); len(got) != 0 {
		t.Errorf("ClusterNames() after Start returned = %v", got)
	}
	for i := range 10 {
		name := multicluster.ClusterName(fmt.Sprintf("c%d", i))
		if _, err := f.Get(t.Context(), name); !errors.Is(err, multicluster.ErrClusterNotFound) {
			t.Errorf("Get(%s) after Start returned: %v", name, err)
		}
	}
	harness.Eventually(t, 0, "every cluster stopped", func() bool {
		for _, name := range []multicluster.ClusterName{"c0", "c9", "stuck"} {
			for _, cl := range f.clustersBuilt(name) {
				if !cl.stopped() {
					return false
				}
			}
		}
		return len(f.aware.Names()) == 0
	})
	if err := eventuallyNoLeak(t, ignore); err != nil {
		t.Error(err)
	}
}

// eventuallyNoLeak waits for teardown (which is asynchronous) and reports the goroutines left.
func eventuallyNoLeak(t *testing.T, ignore goleak.Option) error {
	var err error
	deadline := time.Now().Add(10 * time.Second)
	for err = goleak.Find(ignore); err != nil && time.Now().Before(deadline); err = goleak.Find(ignore) {
		select {
		case <-time.After(20 * time.Millisecond):
		case <-t.Context().Done():
			return err
		}
	}
	return err
}

// An engaged cluster costs no goroutine of the engager: workers exist only while a name has an attempt in flight.
func TestEngagerIdleClustersHaveNoWorker(t *testing.T) {
	f := newEngagerFixture(clusters.EngagerOptions{})
	f.start(t)
	const n = 50
	for i := range n {
		f.Want(multicluster.ClusterName(fmt.Sprintf("c%d", i)), config(fmt.Sprintf("https://c%d", i)))
	}
	f.aware.WaitFor(t, 0, "every cluster engaged", func() bool { return len(f.aware.Names()) == n })
	harness.Eventually(t, 0, "no worker left", func() bool {
		buf := make([]byte, 1<<20)
		return !strings.Contains(string(buf[:runtime.Stack(buf, true)]), "(*Engager).work")
	})
}

// eventRecorder records the Events it is given.
type eventRecorder struct {
	mu     sync.Mutex
	events []string
}

func (r *eventRecorder) Eventf(regarding, _ kruntime.Object, eventType, reason, action, note string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	obj := regarding.(metav1.Object)
	r.events = append(r.events, strings.Join([]string{obj.GetName(), eventType, reason, action, fmt.Sprintf(note, args...)}, "|"))
}

func (r *eventRecorder) recorded() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// Outcomes become Events on the object a cluster came from, and failures go to the set's ErrorHandler; neither
// shows the credentials of the cluster's config, and the reported error still unwraps to its cause.
func TestEngagerEventsAndErrors(t *testing.T) {
	const token = "s3cr3t-t0ken-never-shown"
	events := &eventRecorder{}
	set := clusters.New[cluster.Cluster]()
	var (
		mu      sync.Mutex
		handled []string
	)
	set.ErrorHandler = func(err error, msg string, _ ...any) {
		mu.Lock()
		defer mu.Unlock()
		handled = append(handled, msg+": "+err.Error())
	}
	refused := errors.New("refused")
	f := newEngagerFixture(clusters.EngagerOptions{Clusters: &set, EventRecorder: events, RetryDelay: time.Hour})
	f.aware.Refuse = func(_ context.Context, _ multicluster.ClusterName, cl cluster.Cluster) error {
		if cl.GetConfig().Host == "https://refused" {
			return fmt.Errorf("%w (token %s)", refused, cl.GetConfig().BearerToken)
		}
		return nil
	}
	f.start(t)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "origin"}}
	target := func(host string) clusters.Target {
		return clusters.Target{Config: &rest.Config{Host: host, BearerToken: token}, Object: secret, Source: "Secret ns/origin"}
	}

	f.Want("good", target("https://good"))
	f.Want("bad", target(unbuildableHost))
	f.Want("refused", target("https://refused"))
	harness.Eventually(t, 0, "three Events", func() bool { return len(events.recorded()) == 3 })
	for _, want := range []string{
		`origin|Normal|ClusterEngaged|EngageCluster|Engaged cluster "good" from Secret ns/origin`,
		`origin|Warning|EngageFailed|EngageCluster|Failed to engage cluster "bad" from Secret ns/origin, retrying in 1h`,
		`origin|Warning|EngageFailed|EngageCluster|Failed to engage cluster "refused" from Secret ns/origin, retrying in 1h`,
	} {
		if !slices.ContainsFunc(events.recorded(), func(e string) bool { return strings.HasPrefix(e, want) }) {
			t.Errorf("no Event %q in %v", want, events.recorded())
		}
	}
	mu.Lock()
	reports := slices.Clone(handled)
	mu.Unlock()
	if len(reports) != 2 {
		t.Errorf("ErrorHandler got %v, want the two failures", reports)
	}
	for _, shown := range append(append(reports, events.recorded()...), f.failures("refused")[0].Err.Error()) {
		if strings.Contains(shown, token) {
			t.Errorf("a report shows the token: %s", shown)
		}
	}
	if err := f.failures("refused")[0].Err; !errors.Is(err, refused) {
		t.Errorf("the reported error %v does not unwrap to its cause", err)
	}
}

// What the engager keeps per idle cluster, beside the cluster itself and its entry in the set: measured with 2,000
// fake clusters engaged through the engager and through the set alone (Clusters.Add), the difference of the live
// heap per cluster stays small, and no goroutine of the engager is left (see TestEngagerIdleClustersHaveNoWorker).
func TestEngagerCostPerIdleCluster(t *testing.T) {
	const n = 2000
	heap := func() int64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	name := func(i int) multicluster.ClusterName { return multicluster.ClusterName(fmt.Sprintf("c%05d", i)) }

	set := clusters.New[cluster.Cluster]()
	aware := &countingAware{}
	before := heap()
	for i := range n {
		if err := set.Add(t.Context(), name(i), &harness.IdleCluster{}, aware); err != nil {
			t.Fatal(err)
		}
	}
	bySet := heap() - before

	e := clusters.NewEngager(clusters.EngagerOptions{NewCluster: func(context.Context, multicluster.ClusterName, clusters.Target, ...cluster.Option) (cluster.Cluster, error) {
		return &harness.IdleCluster{}, nil
	}})
	counted := &countingAware{}
	stop := harness.StartProvider(t, e, counted)
	before = heap()
	cfg := &rest.Config{Host: "https://idle"}
	for i := range n {
		e.Want(name(i), clusters.Target{Config: cfg})
	}
	harness.Eventually(t, 0, "every cluster engaged", func() bool { return counted.count() == n })
	byEngager := heap() - before
	perCluster := (byEngager - bySet) / n
	t.Logf("heap per idle cluster: %d B through the set alone, %d B through the engager (%+d B)",
		bySet/n, byEngager/n, perCluster)
	if perCluster > 8<<10 {
		t.Errorf("the engager keeps %d B per idle cluster beside the set's entry, want under 8 KiB", perCluster)
	}
	stop()
	runtime.KeepAlive(&set)
}

// countingAware counts engagements.
type countingAware struct {
	mu sync.Mutex
	n  int
}

func (a *countingAware) Engage(context.Context, multicluster.ClusterName, cluster.Cluster) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n++
	return nil
}

func (a *countingAware) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}
