// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package faults_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"math/rand/v2"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/faults/rig"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// The suite's fleet: a host and three members. Tests run one after the other and each starts its own managers;
// none leaves a member broken.
var r *rig.Rig

// members of the fleet, and the one the tests break.
var (
	members = []string{"member-0", "member-1", "member-2"}
	victim  = "member-0"
	healthy = []string{"member-1", "member-2"}
)

const (
	// writeInterval paces each member's writer.
	writeInterval = 50 * time.Millisecond
	// objects is the number of objects of each kind per member.
	objects = 5
	// waitTimeout bounds waits for what happens within seconds when it works.
	waitTimeout = 90 * time.Second
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// A stalled member must outlast every client timeout within the suite's time: shorten client-go's HTTP/2
	// health check of idle connections (30 s without a frame, then a ping with 15 s to answer, by default) to
	// 5 s + 5 s. It is read when transports are built, so it is set before any is.
	for k, v := range map[string]string{"HTTP2_READ_IDLE_TIMEOUT_SECONDS": "5", "HTTP2_PING_TIMEOUT_SECONDS": "5"} {
		if os.Getenv(k) == "" {
			_ = os.Setenv(k, v)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var err error
	r, err = rig.Start(ctx, rig.Options{Members: len(members)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the rig:", err)
		return 1
	}
	defer func() {
		if err := r.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the rig:", err)
		}
	}()
	if os.Getenv("FAULTS_ECHO") != "" {
		// Debugging: every log line also goes to stderr, with the time.
		r.Logs.Echo(func(line string) { fmt.Fprintln(os.Stderr, time.Now().Format("15:04:05.000"), line) })
	}
	for _, member := range members {
		if err := writeMemberSources(ctx, member); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	code := m.Run()
	figures.print()
	// Whatever the tests did, no credential reached a log line (searched as each was written, and the kept ones
	// again for every credential registered by the end) or an Event of any control plane.
	if leaks := append(r.Logs.Leaks(), r.Logs.SearchKept()...); len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d log lines carry credentials, for example:\n%s\n", len(leaks), leaks[0])
		return 1
	}
	events := 0
	for _, cp := range append([]string{"host"}, members...) {
		list, err := r.Events(ctx, cp)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		for _, e := range list {
			if leak := r.Credentials.Find(e.String()); leak != "" {
				fmt.Fprintf(os.Stderr, "FAIL: the Event %s carries the credential %s\n", e, leak)
				return 1
			}
		}
		events += len(list)
	}
	fmt.Printf("searched %d log lines and %d events for %d credentials: none found\n", r.Logs.Total(), events, r.Credentials.Count())
	return code
}

// writeMemberSources writes the file provider's kubeconfig of a member (admin client certificate) and the
// kubeconfig Secret (admin token).
func writeMemberSources(ctx context.Context, member string) error {
	data, err := r.Kubeconfig(member, member, rig.Auth{CertOf: member})
	if err != nil {
		return err
	}
	if err := r.WriteFile(member, data); err != nil {
		return err
	}
	data, err = r.Kubeconfig(member, member, rig.Auth{Token: r.Tokens.Admin})
	if err != nil {
		return err
	}
	return r.WriteSecret(ctx, member, "", data)
}

// startManagers starts a manager of the file provider and one of the kubeconfig-Secret provider, waits until
// both have engaged every member, and stops them when the test ends.
func startManagers(t *testing.T, opts rig.ManagerOptions) (file, secret *rig.Manager) {
	t.Helper()
	var err error
	if file, err = r.StartFileManager(t.Context(), opts); err != nil {
		t.Fatal(err)
	}
	stopAtEnd(t, file)
	if secret, err = r.StartSecretManager(t.Context(), opts); err != nil {
		t.Fatal(err)
	}
	stopAtEnd(t, secret)
	waitEngaged(t, file, secret)
	return file, secret
}

// startEveryManager starts the managers of startManagers and, beside them, one of the clusters provider whose
// clusters were added with AddConfig (the README's path) and one of the out-of-tree example provider
// (examples/argocd), and waits until each has engaged every member: the managers whose resumption after a fault
// the suite compares.
func startEveryManager(t *testing.T, opts rig.ManagerOptions) []*rig.Manager {
	t.Helper()
	file, secret := startManagers(t, opts)
	config, err := r.StartConfigManager(t.Context(), opts, members...)
	if err != nil {
		t.Fatal(err)
	}
	stopAtEnd(t, config)
	outOfTree, err := r.StartArgoCDManager(t.Context(), opts, members...)
	if err != nil {
		t.Fatal(err)
	}
	stopAtEnd(t, outOfTree)
	managers := []*rig.Manager{file, secret, config, outOfTree}
	waitEngaged(t, managers[2:]...)
	return managers
}

// waitEngaged waits until every manager has engaged every member.
func waitEngaged(t *testing.T, managers ...*rig.Manager) {
	t.Helper()
	for _, m := range managers {
		for _, member := range members {
			eventually(t, waitTimeout, fmt.Sprintf("%s manager engages %s", m.Provider, member), func() bool {
				return m.Engaged(t.Context(), member)
			})
		}
	}
}

// stopAtEnd stops the manager when the test ends and fails the test if it stopped with an error, or before.
func stopAtEnd(t *testing.T, m *rig.Manager) {
	t.Cleanup(func() {
		if !m.Running() {
			t.Errorf("the %s manager stopped during the test: %v", m.Provider, m.Stop())
			return
		}
		if err := m.Stop(); err != nil {
			t.Errorf("the %s manager returned %v", m.Provider, err)
		}
	})
}

// startWriters seeds the objects of the members and starts a writer per member, announcing writes to each
// manager's view of the member; the writers stop when the returned function is called or the test ends.
func startWriters(t *testing.T, seed uint64, members []string, managers ...*rig.Manager) (map[string]*rig.Writer, func()) {
	t.Helper()
	writers := map[string]*rig.Writer{}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for i, member := range members {
		cfg, err := r.Fleet.Config(member)
		if err != nil {
			t.Fatal(err)
		}
		w, err := rig.NewWriter(member, cfg, objects, writeInterval, 0, rand.New(rand.NewPCG(seed, uint64(i))))
		if err != nil {
			t.Fatal(err)
		}
		targets := make([]rig.Target, 0, len(managers))
		for _, m := range managers {
			targets = append(targets, m.Target(member))
		}
		w.SetTargets(targets...)
		if err := w.Seed(ctx); err != nil {
			t.Fatal(err)
		}
		writers[member] = w
	}
	for _, w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.Run(ctx)
		}()
	}
	stop := func() {
		cancel()
		wg.Wait()
	}
	t.Cleanup(stop)
	return writers, stop
}

// eventually polls cond every 20 ms until it holds, and fails the test after timeout.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("timed out after %s waiting until %s", timeout, what)
	}
}

// hold lets a phase of a test run for d (writers keep writing, a fault keeps going): pacing, not synchronisation.
func hold(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case <-t.Context().Done():
		t.Fatal("the test ended while holding a phase")
	case <-time.After(d):
	}
}

// waitConverged waits until every manager has seen the final state of every member's objects and fails the test
// with the mismatches otherwise.
func waitConverged(t *testing.T, members []string, managers ...*rig.Manager) time.Duration {
	t.Helper()
	left, took, err := r.WaitConverged(t.Context(), waitTimeout, members, managers...)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Fatalf("%d objects did not reach their final state in the reconcilers after %s, for example:\n%s",
			len(left), took.Round(time.Millisecond), strings.Join(left[:min(len(left), 10)], "\n"))
	}
	return took
}

// figures collects what the suite measured, printed at the end (and written to $FAULTS_FIGURES).
var figures = &figureList{}

type figureList struct {
	mu    sync.Mutex
	lines []string
}

// add records a figure under the test's name and logs it.
func (f *figureList) addf(t *testing.T, format string, args ...any) {
	t.Helper()
	line := fmt.Sprintf(format, args...)
	t.Log(line)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lines = append(f.lines, t.Name()+": "+line)
}

func (f *figureList) print() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.lines) == 0 {
		return
	}
	text := "fault suite figures:\n  " + strings.Join(f.lines, "\n  ") + "\n"
	fmt.Print(text)
	if path := os.Getenv("FAULTS_FIGURES"); path != "" {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "writing the figures:", err)
		}
	}
}

// nopAware engages nothing.
type nopAware struct{}

func (nopAware) Engage(context.Context, multicluster.ClusterName, cluster.Cluster) error { return nil }

// noLeak waits until no goroutine is left beyond those of before (and those harness.SharedGoroutines ignores),
// and fails the test with the leaked goroutines otherwise.
func noLeak(t *testing.T, timeout time.Duration, what string, before goleak.Option) {
	t.Helper()
	var leaked error
	// The test's context is done by the time cleanups run.
	err := wait.PollUntilContextTimeout(context.WithoutCancel(t.Context()), 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		leaked = goleak.Find(harness.LeakOptions(before)...)
		return leaked == nil, nil
	})
	if err != nil {
		t.Errorf("%s after %s: %v", what, timeout, leaked)
	}
}
