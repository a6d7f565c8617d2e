// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package recovery_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/recovery"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

// logs holds the log lines of the informers of the clusters the tests build (controller-runtime's logger "cache").
var logs = &cacheLines{}

func TestMain(m *testing.M) {
	f := mcenvtest.NewFleet(mcenvtest.Options{NoHost: true, Members: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	err := f.Start(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the fleet:", err)
		os.Exit(1)
	}
	fleet = f
	logf.SetLogger(funcr.New(logs.add, funcr.Options{Verbosity: 4}))
	code := m.Run()
	if err := f.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the fleet:", err)
	}
	os.Exit(code)
}

// cacheLines keeps the lines of controller-runtime's cache logger.
type cacheLines struct {
	mu    sync.Mutex
	lines []string
}

func (c *cacheLines) add(prefix, args string) {
	if !strings.Contains(prefix, "cache") {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines = append(c.lines, prefix+" "+args)
}

func (c *cacheLines) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.lines)
}

// since returns the lines from the n-th on.
func (c *cacheLines) since(n int) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.lines[n:]...)
}

const member = "member-0"

// countingTransport counts the readiness probes that go through it.
type countingTransport struct {
	base   http.RoundTripper
	probes atomic.Int64
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.HasSuffix(req.URL.Path, "/readyz") {
		c.probes.Add(1)
	}
	return c.base.RoundTrip(req)
}

// seenNames records the names of the objects an informer delivers, with when.
type seenNames struct {
	mu   sync.Mutex
	seen map[string]time.Time
}

func (s *seenNames) handler() toolscache.ResourceEventHandlerFuncs {
	record := func(obj any) {
		if o, ok := obj.(client.Object); ok {
			s.mu.Lock()
			if _, dup := s.seen[o.GetName()]; !dup {
				s.seen[o.GetName()] = time.Now()
			}
			s.mu.Unlock()
		}
	}
	return toolscache.ResourceEventHandlerFuncs{AddFunc: record, UpdateFunc: func(_, obj any) { record(obj) }}
}

func (s *seenNames) at(name string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.seen[name]
	return at, ok
}

// startCluster starts a cluster of the member whose cache covers namespace ns, with the recovery option (and an
// HTTP client counting readiness probes), and informers of ConfigMaps and Secrets recording what they deliver.
func startCluster(t *testing.T, cfg *rest.Config, ns string) (*countingTransport, map[string]*seenNames, context.CancelFunc) {
	t.Helper()
	base, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	counting := &countingTransport{base: base}
	httpClient := &http.Client{Transport: counting}
	cl, err := cluster.New(cfg, func(o *cluster.Options) {
		o.HTTPClient = httpClient
		o.Cache.DefaultNamespaces = map[string]cache.Config{ns: {}}
	}, recovery.ClusterOption(member, cfg))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- cl.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("cluster returned %v", err)
		}
	})
	seen := map[string]*seenNames{}
	for kind, obj := range map[string]client.Object{"ConfigMap": &corev1.ConfigMap{}, "Secret": &corev1.Secret{}} {
		inf, err := cl.GetCache().GetInformer(ctx, obj)
		if err != nil {
			t.Fatal(err)
		}
		s := &seenNames{seen: map[string]time.Time{}}
		if _, err := inf.AddEventHandler(s.handler()); err != nil {
			t.Fatal(err)
		}
		seen[kind] = s
	}
	if !cl.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("the cache did not sync")
	}
	return counting, seen, cancel
}

func createObjects(t *testing.T, c client.Client, ns, name string) {
	t.Helper()
	meta := metav1.ObjectMeta{Namespace: ns, Name: name}
	harness.Eventually(t, 0, "creating "+name, func() bool {
		err := c.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: meta})
		return err == nil || strings.Contains(err.Error(), "already exists")
	})
	harness.Eventually(t, 0, "creating "+name, func() bool {
		err := c.Create(t.Context(), &corev1.Secret{ObjectMeta: meta})
		return err == nil || strings.Contains(err.Error(), "already exists")
	})
}

// After a member's API server is killed and restarted, every informer of a cluster built with the recovery option
// delivers again within a few seconds of the API server being ready; client-go's own backoff alone takes anywhere
// up to half a minute. While the member is healthy, nothing is probed; while it is down, probes back off.
func TestResumeAfterKill(t *testing.T) {
	cfg := harness.Config(t, fleet, member)
	c := harness.Client(t, fleet, member)
	ns := "resume"
	if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	counting, seen, _ := startCluster(t, cfg, ns)
	createObjects(t, c, ns, "before")
	for kind, s := range seen {
		harness.Eventually(t, 0, kind+" before the kill delivered", func() bool { _, ok := s.at("before"); return ok })
	}
	if n := counting.probes.Load(); n != 0 {
		t.Errorf("%d readiness probes while the member was healthy; want none", n)
	}

	linesBefore := logs.count()
	if err := fleet.KillMemberAPIServer(member); err != nil {
		t.Fatal(err)
	}
	down := time.Now()
	// The informers notice the broken watch, and their calls wait on the gate, which probes.
	harness.Eventually(t, 0, "the gate probing", func() bool { return counting.probes.Load() > 0 })
	harness.Eventually(t, 0, "an outage of 5s", func() bool { return time.Since(down) > 5*time.Second })
	if err := fleet.RestartMemberAPIServer(t.Context(), member); err != nil {
		t.Fatal(err)
	}
	ready := time.Now()
	probes := counting.probes.Load()
	// 100ms doubling to 1s: about 10 probes in 6-7s (10% jitter); far fewer than one per informer per retry.
	if outage := ready.Sub(down); float64(probes) > 4+outage.Seconds()*1.5 {
		t.Errorf("%d readiness probes in an outage of %s; want them to back off", probes, outage.Round(time.Millisecond))
	}
	createObjects(t, c, ns, "after")
	var longest time.Duration
	for kind, s := range seen {
		harness.Eventually(t, 0, kind+" after the restart delivered", func() bool { _, ok := s.at("after"); return ok })
		at, _ := s.at("after")
		longest = max(longest, at.Sub(ready))
	}
	// The reflectors said that their watches ended, naming the cluster: controller-runtime runs informers with a
	// logger of its own, which the recovery option extends with the cluster's name.
	lines := logs.since(linesBefore)
	if len(lines) == 0 {
		t.Error("the informers logged nothing about the outage")
	}
	for _, line := range lines {
		if !strings.Contains(line, `"cluster"="member-0"`) {
			t.Errorf("a line of the cluster's informers does not name the cluster: %s", line)
		}
	}
	t.Logf("outage %s with %d probes; informers resumed %s after the API server was ready",
		ready.Sub(down).Round(time.Millisecond), probes, longest.Round(time.Millisecond))
	if longest > 5*time.Second {
		t.Errorf("the informers resumed %s after the API server was ready; want within 5s", longest.Round(time.Millisecond))
	}
}

// Errors that are answers of the API server (here: forbidden) are not an outage: the gate stays open and
// nothing is probed; the reflector backs off as usual.
func TestForbiddenIsNotAnOutage(t *testing.T) {
	cfg, err := fleet.AddUser(member, envtest.User{Name: "nobody"})
	if err != nil {
		t.Fatal(err)
	}
	base, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	counting := &countingTransport{base: base}
	cl, err := cluster.New(cfg, func(o *cluster.Options) { o.HTTPClient = &http.Client{Transport: counting} },
		recovery.ClusterOption(member, cfg))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() { _ = cl.Start(ctx) }()
	// A forbidden informer never syncs: start it without waiting for that.
	if _, err := cl.GetCache().GetInformer(ctx, &corev1.ConfigMap{}, cache.BlockUntilSynced(false)); err != nil {
		t.Fatal(err)
	}
	harness.Consistently(t, 2*time.Second, "no readiness probe", func() bool { return counting.probes.Load() == 0 })
}

// A cluster stopped while its informers wait for the member to come back leaves no goroutine behind.
func TestStopWhileDown(t *testing.T) {
	cfg := harness.Config(t, fleet, member)
	before := goleak.IgnoreCurrent()
	c := harness.Client(t, fleet, member)
	ns := "stop-while-down"
	if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	counting, _, stop := startCluster(t, cfg, ns)
	if err := fleet.KillMemberAPIServer(member); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := fleet.RestartMemberAPIServer(context.WithoutCancel(t.Context()), member); err != nil {
			t.Error(err)
		}
	}()
	harness.Eventually(t, 0, "the gate probing", func() bool { return counting.probes.Load() > 0 })
	stop()
	harness.Eventually(t, 0, "no goroutine left of the cluster", func() bool {
		return goleak.Find(harness.LeakOptions(before)...) == nil
	})
}
