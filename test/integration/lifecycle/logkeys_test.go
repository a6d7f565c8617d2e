// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	clustersprovider "sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// The clusters of TestLogLinesNameTheirCluster. No name contains another, so a line that mentions one mentions no
// other by accident.
const (
	lkHealthy  multicluster.ClusterName = "logkeys-healthy"  // member-0; its reconcile of "blocker" holds the only worker
	lkFailing  multicluster.ClusterName = "logkeys-failing"  // member-1; its reconcile of "fail" returns an error once
	lkDropped  multicluster.ClusterName = "logkeys-dropped"  // member-2; removed while its requests are queued
	lkClosed   multicluster.ClusterName = "logkeys-closed"   // a closed port; engaged, its source never gets an informer
	lkRefused  multicluster.ClusterName = "logkeys-refused"  // a closed port, added before Start; its cache never syncs
	lkReplaced multicluster.ClusterName = "logkeys-replaced" // member-0, then replaced under its name by member-1
)

// Every log line of the library about a cluster carries the key "cluster" with the cluster's name (a
// multicluster.ClusterName or a string), so that the lines of one cluster can be found among a fleet's: a fleet is
// driven through what logs per cluster, on real control planes, with every line recorded (all verbosities, with the
// values of WithValues and the names of WithName) from the manager's logger, the context's and controller-runtime's
// global one (which the library's clusters and providers log through):
//   - clusters engaged through the clusters provider (AddConfig), reconciled, one with a reconcile error;
//   - a cluster removed while its requests are queued behind a busy worker (they are dropped, at V(1));
//   - a cluster at a closed port, engaged (its controller source cannot get an informer, without discovery, and
//     does not sync within the controller's timeout), and another added before the provider starts, whose cache
//     holds an informer from the start: it fails to list, waits for the cluster to answer a readiness probe, and
//     does not sync within the provider's timeout (the cluster fails to engage);
//   - a cluster replaced under its name by one of another member.
//
// Every recorded line that mentions a cluster of the test (in its message, logger name, error or any value, or, for
// the clusters at a closed port, their address) must carry "cluster" with that name; and each kind of line driven
// must have been seen, so that the test cannot pass by recording nothing. None of the lines driven here is about
// several clusters, so no line may use another key instead.
//
// A log call of the library that names a cluster only in a message or an error, or with another key, fails it.
func TestLogLinesNameTheirCluster(t *testing.T) {
	const ns = "lc-logkeys"
	const queued = 3
	for _, member := range fleet.Members() {
		ensureNamespace(t, member, ns)
	}
	// The objects are deleted when the test ends, so that -count can repeat it.
	createObject := func(member, name string) {
		cm := createConfigMap(t, member, ns, name)
		t.Cleanup(func() { _ = harness.Client(t, fleet, member).Delete(context.WithoutCancel(t.Context()), cm) })
	}
	createObject("member-0", "blocker")
	createObject("member-1", "fail")
	for i := range queued {
		createObject("member-2", fmt.Sprintf("queued-%d", i))
	}
	closedAt, refusedAt := closedPort(), closedPort()
	// A line mentions a cluster if it names it, or, for a cluster at a closed port, names its address (as client-go's
	// lines do).
	addresses := map[multicluster.ClusterName]string{lkClosed: closedAt, lkRefused: refusedAt}
	mentions := map[multicluster.ClusterName]*regexp.Regexp{}
	for _, name := range []multicluster.ClusterName{lkHealthy, lkFailing, lkDropped, lkClosed, lkRefused, lkReplaced} {
		pattern := regexp.QuoteMeta(string(name))
		if addr, ok := addresses[name]; ok {
			pattern += "|" + regexp.QuoteMeta(addr) + `\b`
		}
		mentions[name] = regexp.MustCompile(pattern)
	}

	lines := &logRecord{}
	activeLogRecord.Store(lines)
	t.Cleanup(func() { activeLogRecord.Store(nil) })
	logger := logr.New(&recordingSink{record: lines})
	ctx := logf.IntoContext(t.Context(), logger)
	ignore := goleak.IgnoreCurrent()

	p := clustersprovider.New()
	p.WaitCacheTimeout = 5 * time.Second
	inNamespace := func(o *cluster.Options) { o.Cache.DefaultNamespaces = map[string]cache.Config{ns: {}} }
	// Added before the provider starts: its failure to engage is logged, not returned.
	if err := p.AddConfig(ctx, lkRefused, configAt(t, refusedAt), inNamespace, fixedMapping, watchingFromStart); err != nil {
		t.Fatal(err)
	}

	mgr := harness.NewManager(t, fleet.Host(), p, func(o *mcmanager.Options) {
		o.Logger = logger
		o.Controller.SkipNameValidation = ptr.To(true)
	})
	events := &eventLog{}
	blocked, unblock := make(chan struct{}), make(chan struct{})
	var blockOnce, unblockOnce, failOnce sync.Once
	release := func() { unblockOnce.Do(func() { close(unblock) }) }
	defer release()
	ctrl, err := mccontroller.New("logkeys", mgr, mccontroller.Options{
		MaxConcurrentReconciles: 1,
		CacheSyncTimeout:        3 * time.Second,
		Reconciler: mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			switch {
			case req.ClusterName == lkHealthy && req.Name == "blocker":
				blockOnce.Do(func() { close(blocked) })
				<-unblock
			case req.ClusterName == lkFailing && req.Name == "fail":
				var err error
				failOnce.Do(func() { err = errors.New("failing on purpose") })
				return reconcile.Result{}, err
			case req.ClusterName == lkDropped:
				t.Errorf("reconciled %s/%s after its cluster was removed", req.ClusterName, req.Name)
			}
			return reconcile.Result{}, nil
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.MultiClusterWatch(events.configMapSource()); err != nil {
		t.Fatal(err)
	}
	stop := harness.StartManager(t, ctx, mgr)

	addMember := func(name multicluster.ClusterName, member string) {
		t.Helper()
		if err := p.AddConfig(ctx, name, harness.Config(t, fleet, member), inNamespace); err != nil {
			t.Fatal(err)
		}
	}
	addMember(lkHealthy, "member-0")
	select {
	case <-blocked:
	case <-time.After(shortWait):
		t.Fatal("the blocker was not reconciled")
	}

	// Requests of a removed cluster, queued behind the blocker, are dropped once the worker is free.
	addMember(lkDropped, "member-2")
	harness.Eventually(t, 0, "the requests of "+string(lkDropped)+" queued", func() bool {
		for i := range queued {
			if events.count(seenEvent{Cluster: string(lkDropped), Type: "Create", Name: fmt.Sprintf("queued-%d", i)}) == 0 {
				return false
			}
		}
		return true
	})
	p.Remove(lkDropped)
	harness.Eventually(t, 0, "the controller disengaged "+string(lkDropped), func() bool {
		return lines.count("Disengaged cluster", mentions[lkDropped]) > 0
	})

	addMember(lkFailing, "member-1")
	if err := p.AddConfig(ctx, lkClosed, configAt(t, closedAt), inNamespace); err != nil {
		t.Fatal(err)
	}
	release()

	addMember(lkReplaced, "member-0")
	harness.Eventually(t, 0, "the first "+string(lkReplaced)+" delivers", func() bool {
		return events.count(seenEvent{Cluster: string(lkReplaced), Name: "blocker"}) > 0
	})
	if err := p.AddOrReplaceConfig(ctx, lkReplaced, harness.Config(t, fleet, "member-1"), inNamespace); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "the replacing "+string(lkReplaced)+" delivers", func() bool {
		return events.count(seenEvent{Cluster: string(lkReplaced), Name: "fail"}) > 0
	})

	// Each kind of line driven above, with the cluster it is about.
	driven := []struct {
		msg     string
		cluster multicluster.ClusterName
		atLeast int
	}{
		{"Engaged cluster", lkHealthy, 1},
		{"Source synced", lkHealthy, 1},
		{"Dropping request of a cluster that is no longer engaged", lkDropped, queued},
		{"Disengaged cluster", lkDropped, 1},
		{"Reconciler error", lkFailing, 1},
		{"Failed to get informer, will retry", lkClosed, 1},
		{"Source of cluster did not sync, restarting it", lkClosed, 1},
		{"Cluster cannot be reached; its informers wait until it answers a readiness probe", lkRefused, 1},
		{"Readiness probe not answered", lkRefused, 1},
		{"Failed to engage cluster", lkRefused, 1},
		{"Engaged cluster", lkReplaced, 2},
	}
	for _, d := range driven {
		harness.Eventually(t, 0, fmt.Sprintf("%d line(s) %q about %s", d.atLeast, d.msg, d.cluster), func() bool {
			return lines.count(d.msg, mentions[d.cluster]) >= d.atLeast
		})
	}

	stop()
	waitNoLeak(t, ignore)
	activeLogRecord.Store(nil)

	all := lines.all()
	checked := 0
	for _, l := range all {
		about := 0
		for name, re := range mentions {
			if !re.MatchString(l.text) {
				continue
			}
			about++
			checked++
			if !l.hasCluster(name) {
				t.Errorf("a line about cluster %s does not carry \"cluster\"=%q: %s", name, name, l.text)
			}
		}
		if about > 1 {
			t.Errorf("a line mentions several clusters of the test: %s", l.text)
		}
	}
	if t.Failed() {
		for _, l := range all {
			t.Log(l.text)
		}
	}
	t.Logf("%d lines recorded, %d about a cluster of the test", len(all), checked)
}

// closedPort returns host:port of a loopback port that nothing listens on any more.
func closedPort() string {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	return srv.Listener.Addr().String()
}

// configAt returns member-0's rest.Config with its server moved to addr.
func configAt(t testing.TB, addr string) *rest.Config {
	t.Helper()
	cfg := rest.CopyConfig(harness.Config(t, fleet, "member-0"))
	cfg.Host = "https://" + addr
	return cfg
}

// fixedMapping gives a cluster a REST mapping of ConfigMaps that needs no discovery, so that the informers of a
// cluster at a closed port are created (and fail to list) instead of failing at discovery.
func fixedMapping(o *cluster.Options) {
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	o.MapperProvider = func(*rest.Config, *http.Client) (meta.RESTMapper, error) { return mapper, nil }
}

// watchingFromStart gives a cluster a cache that holds a ConfigMap informer before it starts, as a provider's field
// index would, so that the provider waits for it to sync before engaging the cluster.
func watchingFromStart(o *cluster.Options) {
	o.NewCache = func(cfg *rest.Config, opts cache.Options) (cache.Cache, error) {
		c, err := cache.New(cfg, opts)
		if err != nil {
			return nil, err
		}
		if _, err := c.GetInformer(context.Background(), &corev1.ConfigMap{}, cache.BlockUntilSynced(false)); err != nil {
			return nil, err
		}
		return c, nil
	}
}

// activeLogRecord receives the lines logged through controller-runtime's global logger while a test records them;
// nil drops them, as controller-runtime does by default.
var activeLogRecord atomic.Pointer[logRecord]

// The global logger is set before anything logs: controller-runtime keeps the first one set, and sets one that
// drops every line if none is set within 30 seconds.
func init() {
	logf.SetLogger(logr.New(&recordingSink{}))
}

// logLine is a recorded log line.
type logLine struct {
	msg string
	// clusters are the values of the key "cluster", of WithValues and of the call.
	clusters []any
	// text is the logger's name, the message, the error and every key and value, rendered when the line was logged.
	text string
}

// hasCluster reports whether the line carries "cluster" with name, as a multicluster.ClusterName or a string.
func (l logLine) hasCluster(name multicluster.ClusterName) bool {
	for _, v := range l.clusters {
		switch v := v.(type) {
		case multicluster.ClusterName:
			if v == name {
				return true
			}
		case string:
			if v == string(name) {
				return true
			}
		}
	}
	return false
}

// logRecord keeps recorded log lines. It is safe for concurrent use.
type logRecord struct {
	mu    sync.Mutex
	lines []logLine
}

// all returns the lines recorded so far.
func (r *logRecord) all() []logLine {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.lines)
}

// count returns how many lines with message msg mention what re matches.
func (r *logRecord) count(msg string, re *regexp.Regexp) int {
	n := 0
	for _, l := range r.all() {
		if l.msg == msg && re.MatchString(l.text) {
			n++
		}
	}
	return n
}

// recordingSink is a logr.LogSink that records every line, of every verbosity, with the names and values of the
// logger it was logged through, into record, or into activeLogRecord if record is nil.
type recordingSink struct {
	record *logRecord
	name   string
	values []any
}

var _ logr.LogSink = &recordingSink{}

func (s *recordingSink) target() *logRecord {
	if s.record != nil {
		return s.record
	}
	return activeLogRecord.Load()
}

func (s *recordingSink) Init(logr.RuntimeInfo) {}

func (s *recordingSink) Enabled(int) bool { return s.target() != nil }

func (s *recordingSink) Info(_ int, msg string, keysAndValues ...any) { s.log(nil, msg, keysAndValues) }

func (s *recordingSink) Error(err error, msg string, keysAndValues ...any) {
	s.log(err, msg, keysAndValues)
}

func (s *recordingSink) log(err error, msg string, keysAndValues []any) {
	r := s.target()
	if r == nil {
		return
	}
	kv := append(append([]any(nil), s.values...), keysAndValues...)
	var text strings.Builder
	fmt.Fprintf(&text, "%s %q", s.name, msg)
	if err != nil {
		fmt.Fprintf(&text, " error=%q", err.Error())
	}
	l := logLine{msg: msg}
	for i := 0; i < len(kv); i += 2 {
		var v any = "<missing>"
		if i+1 < len(kv) {
			v = kv[i+1]
		}
		if kv[i] == "cluster" {
			l.clusters = append(l.clusters, v)
		}
		fmt.Fprintf(&text, " %v=%+v", kv[i], v)
	}
	l.text = text.String()
	r.mu.Lock()
	r.lines = append(r.lines, l)
	r.mu.Unlock()
}

func (s *recordingSink) WithValues(keysAndValues ...any) logr.LogSink {
	c := *s
	c.values = append(append([]any(nil), s.values...), keysAndValues...)
	return &c
}

func (s *recordingSink) WithName(name string) logr.LogSink {
	c := *s
	if c.name != "" {
		name = c.name + "." + name
	}
	c.name = name
	return &c
}
