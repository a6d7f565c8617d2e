// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package soak_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"sigs.k8s.io/multicluster-runtime/test/faults/rig"
)

var (
	duration      = flag.Duration("soak.duration", 0, "how long faults are inflicted (0 skips the soak); make soak sets 30m")
	seedFlag      = flag.Uint64("soak.seed", 0, "seed of the fault schedule (0: a new one, printed)")
	members       = flag.Int("soak.members", 4, "members the fleet starts with (and ends with)")
	faultInterval = flag.Duration("soak.fault-interval", 8*time.Second, "mean time between two faults")
	figuresPath   = flag.String("soak.figures", os.Getenv("SOAK_FIGURES"), "file to write the soak's figures to")
)

const (
	// writeInterval paces each member's writer; churn is the fraction of its writes that delete an object.
	writeInterval = 100 * time.Millisecond
	churn         = 0.1
	objects       = 5
	// settleTimeout bounds the waits at the start and the end of the soak.
	settleTimeout = 3 * time.Minute
	// minMembers is the fewest members the soak keeps while it removes some.
	minMembers = 2
)

// A randomized soak on real control planes: while writers update, delete and recreate objects in every member,
// random faults hit random members (API server killed and restarted, stopped and continued, credentials rotated,
// members added and removed), one every soak.fault-interval on average, for soak.duration. When the faults stop,
// every cluster's objects must reach the reconcilers of both managers in their final state (0 lost), no manager
// may have stopped, no log line may carry a credential, and goroutines and heap must be back near where they were
// before. The fault schedule follows soak.seed; a failing run prints it:
//
//	make soak SOAK_DURATION=30m SOAK_SEED=<seed>
func TestSoak(t *testing.T) {
	if *duration <= 0 {
		t.Skip("the soak runs with -soak.duration (make soak)")
	}
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("soak seed %d (replay: make soak SOAK_DURATION=%s SOAK_SEED=%d)", seed, *duration, seed)
	t.Cleanup(func() {
		if t.Failed() {
			fmt.Fprintf(os.Stderr, "soak FAILED with seed %d: replay with make soak SOAK_DURATION=%s SOAK_SEED=%d\n", seed, *duration, seed)
		}
	})
	s := newSoak(t, seed)
	s.run()
}

// memberState is what the soak has done to a member.
type memberState struct {
	name   string
	writer *rig.Writer
	cancel context.CancelFunc
	done   chan struct{}
	// fault is "", "killed" or "paused"; until is when it ends.
	fault string
	until time.Time
	// rotated tells which credentials the member's file and Secret use.
	rotated bool
	// epoch counts the member's faults, so that a resume measurement of an earlier fault is dropped.
	epoch int
}

type soak struct {
	t        *testing.T
	ctx      context.Context
	rnd      *rand.Rand
	seed     uint64
	rig      *rig.Rig
	file     *rig.Manager
	secret   *rig.Manager
	managers []*rig.Manager

	mu      sync.Mutex
	members map[string]*memberState
	added   int
	// writesOK and writesFailed count the writes of the writers of removed members.
	writesOK, writesFailed int64
	counts                 map[string]int
	resumes                map[string][]time.Duration
	errs                   []string
	wg                     sync.WaitGroup
}

func newSoak(t *testing.T, seed uint64) *soak {
	ctx := t.Context()
	r, err := rig.Start(ctx, rig.Options{Members: *members, LogVerbosity: 4, KeepLevel: 0, MaxLines: 5000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Stop(); err != nil {
			t.Errorf("stopping the rig: %v", err)
		}
	})
	s := &soak{
		t: t, ctx: ctx, rnd: rand.New(rand.NewPCG(seed, seed^0x5eed)), seed: seed, rig: r,
		members: map[string]*memberState{}, counts: map[string]int{}, resumes: map[string][]time.Duration{},
	}
	for _, m := range r.Fleet.Members() {
		s.members[m] = &memberState{name: m}
		if err := s.writeSources(m); err != nil {
			t.Fatal(err)
		}
	}
	if s.file, err = r.StartFileManager(ctx, rig.ManagerOptions{}); err != nil {
		t.Fatal(err)
	}
	if s.secret, err = r.StartSecretManager(ctx, rig.ManagerOptions{}); err != nil {
		t.Fatal(err)
	}
	s.managers = []*rig.Manager{s.file, s.secret}
	t.Cleanup(func() {
		for _, m := range s.managers {
			if !m.Running() {
				t.Errorf("the %s manager stopped during the soak", m.Provider)
			}
			if err := m.Stop(); err != nil {
				t.Errorf("the %s manager returned %v", m.Provider, err)
			}
		}
	})
	return s
}

// writeSources writes a member's kubeconfig file and Secret with its current credentials.
func (s *soak) writeSources(member string) error {
	st := s.members[member]
	fileAuth, secretAuth := rig.Auth{CertOf: member}, rig.Auth{Token: s.rig.Tokens.Admin}
	if st.rotated {
		fileAuth, secretAuth = rig.Auth{Token: s.rig.Tokens.Rotated}, rig.Auth{Token: s.rig.Tokens.Rotated}
	}
	data, err := s.rig.Kubeconfig(member, member, fileAuth)
	if err != nil {
		return err
	}
	if err := s.rig.WriteFile(member, data); err != nil {
		return err
	}
	data, err = s.rig.Kubeconfig(member, member, secretAuth)
	if err != nil {
		return err
	}
	return s.rig.WriteSecret(s.ctx, member, "", data)
}

func (s *soak) run() {
	t := s.t
	names := s.memberNames()
	s.waitEngaged(names...)
	for _, m := range names {
		s.startWriter(m)
	}
	s.hold(5 * time.Second)
	s.stopWriters()
	s.waitConverged("the warm-up")
	goroutinesBefore, heapBefore := s.settle()
	for _, m := range s.memberNames() {
		s.startWriter(m)
	}
	s.setPhase("unloaded")
	s.hold(10 * time.Second)

	s.setPhase("soak")
	load := sampleLoad(s.ctx)
	began := time.Now()
	deadline := began.Add(*duration)
	for time.Now().Before(deadline) {
		s.endDueFaults()
		s.inflict()
		s.hold(time.Duration(s.rnd.ExpFloat64() * float64(*faultInterval)))
	}
	faultTime := time.Since(began)
	loadFigure := load()

	// Faults stop: every member healthy again, back to the initial number of members.
	s.setPhase("recovery")
	s.endAllFaults()
	for len(s.memberNames()) < *members {
		s.addMember()
	}
	for len(s.memberNames()) > *members {
		s.removeMember(s.memberNames()[len(s.memberNames())-1])
	}
	// The members resume (measured in the background while the writers write), then the writers stop.
	s.wg.Wait()
	s.hold(5 * time.Second)
	s.stopWriters()
	took := s.waitConverged("the end")
	goroutinesAfter, heapAfter := s.settle()

	writesOK, writesFailed := s.writesOK, s.writesFailed
	for _, st := range s.members {
		ok, failed, _ := st.writer.Stats()
		writesOK += ok
		writesFailed += failed
	}
	s.figuref("seed %d, %s of faults on %d members (one every %s on average)", s.seed, faultTime.Round(time.Second), *members, *faultInterval)
	s.figuref("faults: %s", s.countsText())
	s.figuref("load average (1 min) during the faults: %s", loadFigure)
	for _, kind := range []string{"kill", "pause"} {
		if rs := s.resumes[kind]; len(rs) > 0 {
			s.figuref("resume after %s (from the API server ready or continued to every informer delivering): %s", kind, rig.Summarize(rs))
		}
	}
	for _, m := range s.managers {
		s.figuref("%s provider: write-to-reconcile latency unloaded: %s", m.Provider, rig.Summarize(m.Observer.Latencies("unloaded")))
		s.figuref("%s provider: write-to-reconcile latency during the faults, members without a fault: %s", m.Provider,
			rig.Summarize(m.Observer.Latencies("soak")))
		s.figuref("%s provider: write-to-reconcile latency during the faults, members killed or stopped at the time of the write: %s",
			m.Provider, rig.Summarize(m.Observer.Latencies("soak/faulted")))
		s.figuref("%s provider: %d reconciles", m.Provider, m.Observer.Reconciles())
	}
	s.figuref("writes: %d succeeded, %d failed (members down); final state of every object seen by both managers %s after the writers stopped: 0 lost",
		writesOK, writesFailed, took.Round(time.Millisecond))
	s.figuref("goroutines: %d before, %d after; heap: %.1f MiB before, %.1f MiB after", goroutinesBefore, goroutinesAfter,
		float64(heapBefore)/(1<<20), float64(heapAfter)/(1<<20))
	s.figuref("log lines: %d written, %d carrying a credential", s.rig.Logs.Total(), len(s.rig.Logs.Leaks()))
	s.writeFigures()

	if leaks := s.rig.Logs.Leaks(); len(leaks) > 0 {
		t.Errorf("%d log lines carry credentials, for example: %s", len(leaks), leaks[0])
	}
	s.mu.Lock()
	for _, e := range s.errs {
		t.Error(e)
	}
	s.mu.Unlock()
	// Goroutines and heap back near where they were: a leak per fault would show hundreds of goroutines and many
	// MiB after hundreds of faults.
	if goroutinesAfter > goroutinesBefore+goroutinesBefore/5 {
		t.Errorf("%d goroutines after the soak, %d before", goroutinesAfter, goroutinesBefore)
	}
	if heapAfter > heapBefore+heapBefore/2+16<<20 {
		t.Errorf("heap %.1f MiB after the soak, %.1f MiB before", float64(heapAfter)/(1<<20), float64(heapBefore)/(1<<20))
	}
}

// inflict picks a fault at random and inflicts it on a random member that has none.
func (s *soak) inflict() {
	healthy := s.healthyMembers()
	kind := pick(s.rnd, faultWeights)
	if len(healthy) == 0 || (kind == "remove" && len(s.memberNames()) <= minMembers) || (kind == "add" && len(s.memberNames()) >= *members+2) {
		kind = "rotate"
		if len(healthy) == 0 {
			return
		}
	}
	member := healthy[s.rnd.IntN(len(healthy))]
	s.count(kind)
	switch kind {
	case "kill":
		s.must(s.rig.Fleet.KillMemberAPIServer(member))
		s.setFault(member, "killed", time.Now().Add(time.Duration(2+s.rnd.IntN(14))*time.Second))
	case "pause":
		s.must(s.rig.Fleet.PauseMemberAPIServer(member))
		s.setFault(member, "paused", time.Now().Add(time.Duration(5+s.rnd.IntN(36))*time.Second))
	case "rotate":
		s.mu.Lock()
		st := s.members[member]
		st.rotated = !st.rotated
		s.mu.Unlock()
		s.must(s.writeSources(member))
	case "add":
		s.addMember()
	case "remove":
		s.removeMember(member)
	}
}

// faultWeights are the odds of each kind of fault: adding and removing members starts and stops control planes,
// which costs seconds of CPU, so they are rarer.
var faultWeights = []struct {
	kind   string
	weight int
}{{"kill", 3}, {"pause", 2}, {"rotate", 3}, {"add", 1}, {"remove", 1}}

// pick draws a kind of fault.
func pick(rnd *rand.Rand, weights []struct {
	kind   string
	weight int
}) string {
	total := 0
	for _, w := range weights {
		total += w.weight
	}
	n := rnd.IntN(total)
	for _, w := range weights {
		if n < w.weight {
			return w.kind
		}
		n -= w.weight
	}
	return weights[0].kind
}

// setFault records a fault of a member until a time.
func (s *soak) setFault(member, fault string, until time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.members[member]
	st.fault, st.until = fault, until
	st.epoch++
	st.writer.SetTag("/faulted")
}

// endDueFaults ends the faults whose time has come.
func (s *soak) endDueFaults() {
	for _, st := range s.faulted() {
		if time.Now().After(st.until) {
			s.endFault(st)
		}
	}
}

// endAllFaults ends every fault.
func (s *soak) endAllFaults() {
	for _, st := range s.faulted() {
		s.endFault(st)
	}
}

// endFault restarts or continues a member's API server and measures, in the background, when both managers
// deliver its writes again.
func (s *soak) endFault(st *memberState) {
	kind := "kill"
	if st.fault == "killed" {
		s.must(s.rig.Fleet.RestartMemberAPIServer(s.ctx, st.name))
	} else {
		kind = "pause"
		s.must(s.rig.Fleet.ResumeMemberAPIServer(st.name))
	}
	ended := time.Now()
	s.mu.Lock()
	st.fault = ""
	epoch := st.epoch
	s.mu.Unlock()
	st.writer.SetTag("")
	for _, m := range s.managers {
		m.Observer.MarkResume(m.ClusterName(st.name), ended)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		var longest time.Duration
		err := wait.PollUntilContextTimeout(s.ctx, 50*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
			s.mu.Lock()
			stale := st.epoch != epoch || s.members[st.name] != st
			s.mu.Unlock()
			if stale {
				return false, errStale
			}
			longest = 0
			for _, m := range s.managers {
				r := m.Observer.Resumed(m.ClusterName(st.name))
				if len(r) < len(rig.Kinds) {
					return false, nil
				}
				for _, d := range r {
					longest = max(longest, d)
				}
			}
			return true, nil
		})
		s.mu.Lock()
		defer s.mu.Unlock()
		switch {
		case err == nil:
			s.resumes[kind] = append(s.resumes[kind], longest)
		case errors.Is(err, errStale) || s.ctx.Err() != nil:
		default:
			s.errs = append(s.errs, fmt.Sprintf("%s did not resume within 2 minutes after its %s ended", st.name, kind))
		}
	}()
}

var errStale = errors.New("another fault began")

// addMember starts a new member, writes its sources and starts its writer once both managers engaged it.
func (s *soak) addMember() {
	s.mu.Lock()
	s.added++
	name := fmt.Sprintf("soak-%d", s.added)
	s.mu.Unlock()
	if _, err := s.rig.Fleet.AddMember(s.ctx, name); err != nil {
		s.must(err)
		return
	}
	s.must(s.rig.PrepareMember(s.ctx, name))
	s.mu.Lock()
	s.members[name] = &memberState{name: name}
	s.mu.Unlock()
	s.must(s.writeSources(name))
	s.waitEngaged(name)
	s.startWriter(name)
}

// removeMember deletes a member's file and Secret, waits until both managers have let it go, and stops it.
func (s *soak) removeMember(name string) {
	s.mu.Lock()
	st := s.members[name]
	delete(s.members, name)
	s.mu.Unlock()
	st.cancel()
	<-st.done
	ok, failed, _ := st.writer.Stats()
	s.mu.Lock()
	s.writesOK += ok
	s.writesFailed += failed
	s.mu.Unlock()
	s.must(os.Remove(s.rig.KubeconfigPath(name)))
	s.must(s.rig.DeleteSecret(s.ctx, name))
	s.poll("managers disengage "+name, func() bool {
		for _, m := range s.managers {
			if m.Engaged(s.ctx, name) {
				return false
			}
		}
		return true
	})
	for _, m := range s.managers {
		m.Observer.DropPending(m.ClusterName(name))
	}
	s.must(s.rig.Fleet.RemoveMember(name))
}

// startWriter seeds a member's objects and starts its writer.
func (s *soak) startWriter(member string) {
	cfg, err := s.rig.Fleet.Config(member)
	if err != nil {
		s.t.Fatal(err)
	}
	s.mu.Lock()
	st := s.members[member]
	w := st.writer
	s.mu.Unlock()
	if w == nil {
		w, err = rig.NewWriter(member, cfg, objects, writeInterval, churn, rand.New(rand.NewPCG(s.seed, s.rnd.Uint64())))
		if err != nil {
			s.t.Fatal(err)
		}
		targets := make([]rig.Target, 0, len(s.managers))
		for _, m := range s.managers {
			targets = append(targets, m.Target(member))
		}
		w.SetTargets(targets...)
	}
	ctx, cancel := context.WithCancel(s.ctx)
	if err := w.Seed(ctx); err != nil {
		s.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(ctx)
	}()
	s.mu.Lock()
	st.writer, st.cancel, st.done = w, cancel, done
	s.mu.Unlock()
}

func (s *soak) stopWriters() {
	s.mu.Lock()
	sts := make([]*memberState, 0, len(s.members))
	for _, st := range s.members {
		sts = append(sts, st)
	}
	s.mu.Unlock()
	for _, st := range sts {
		if st.cancel != nil {
			st.cancel()
			<-st.done
		}
	}
}

func (s *soak) waitEngaged(names ...string) {
	for _, name := range names {
		s.poll("both managers engage "+name, func() bool {
			for _, m := range s.managers {
				if !m.Engaged(s.ctx, name) {
					return false
				}
			}
			return true
		})
	}
}

// waitConverged waits until both managers saw the final state of every member's objects.
func (s *soak) waitConverged(when string) time.Duration {
	left, took, err := s.rig.WaitConverged(s.ctx, settleTimeout, s.memberNames(), s.managers...)
	if err != nil {
		s.t.Fatal(err)
	}
	if len(left) > 0 {
		s.t.Fatalf("at %s, %d objects did not reach their final state in the reconcilers, for example:\n%s", when,
			len(left), strings.Join(left[:min(len(left), 10)], "\n"))
	}
	return took
}

// settle waits until the goroutine count is stable, then returns it and the live heap after a GC.
func (s *soak) settle() (goroutines int, heap uint64) {
	last, stable := runtime.NumGoroutine(), 0
	s.poll("the goroutine count settles", func() bool {
		n := runtime.NumGoroutine()
		if n-last <= 3 && last-n <= 3 {
			stable++
		} else {
			stable = 0
		}
		last = n
		return stable >= 50
	})
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return last, ms.HeapAlloc
}

func (s *soak) poll(what string, cond func() bool) {
	err := wait.PollUntilContextTimeout(s.ctx, 20*time.Millisecond, settleTimeout, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		s.t.Fatalf("timed out waiting until %s", what)
	}
}

// hold lets the soak run for d: pacing between faults, not synchronisation.
func (s *soak) hold(d time.Duration) {
	select {
	case <-s.ctx.Done():
		s.t.Fatal("the test ended while the soak ran")
	case <-time.After(d):
	}
}

func (s *soak) setPhase(phase string) {
	for _, m := range s.managers {
		m.Observer.SetPhase(phase)
	}
}

func (s *soak) memberNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.members))
	for name := range s.members {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func (s *soak) healthyMembers() []string {
	var out []string
	for _, name := range s.memberNames() {
		s.mu.Lock()
		if s.members[name].fault == "" {
			out = append(out, name)
		}
		s.mu.Unlock()
	}
	return out
}

func (s *soak) faulted() []*memberState {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*memberState
	for _, st := range s.members {
		if st.fault != "" {
			out = append(out, st)
		}
	}
	slices.SortFunc(out, func(a, b *memberState) int { return strings.Compare(a.name, b.name) })
	return out
}

func (s *soak) count(kind string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[kind]++
}

func (s *soak) countsText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	parts := make([]string, 0, len(faultWeights))
	total := 0
	for _, w := range faultWeights {
		parts = append(parts, fmt.Sprintf("%d %s", s.counts[w.kind], w.kind))
		total += s.counts[w.kind]
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}

func (s *soak) must(err error) {
	if err != nil {
		s.t.Helper()
		s.t.Fatalf("seed %d: %v", s.seed, err)
	}
}

// sampleLoad samples the machine's 1-minute load average every 10 s until the returned function is called, which
// describes the samples (Linux; "unknown" elsewhere).
func sampleLoad(ctx context.Context) func() string {
	ctx, cancel := context.WithCancel(ctx)
	var (
		mu      sync.Mutex
		samples []float64
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ticker := time.NewTicker(10 * time.Second)
		defer ticker.Stop()
		for {
			if data, err := os.ReadFile("/proc/loadavg"); err == nil {
				var v float64
				if _, err := fmt.Sscanf(string(data), "%f", &v); err == nil {
					mu.Lock()
					samples = append(samples, v)
					mu.Unlock()
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
		}
	}()
	return func() string {
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		if len(samples) == 0 {
			return "unknown"
		}
		lo, hi, sum := samples[0], samples[0], 0.0
		for _, v := range samples {
			lo, hi, sum = min(lo, v), max(hi, v), sum+v
		}
		return fmt.Sprintf("min %.2f, mean %.2f, max %.2f (2 cores, shared with other work)", lo, sum/float64(len(samples)), hi)
	}
}

// figureLines are the soak's figures, printed at the end.
var figureLines []string

func (s *soak) figuref(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	s.t.Log(line)
	figureLines = append(figureLines, line)
}

func (s *soak) writeFigures() {
	text := "soak figures:\n  " + strings.Join(figureLines, "\n  ") + "\n"
	fmt.Print(text)
	if *figuresPath != "" {
		if err := os.WriteFile(*figuresPath, []byte(text), 0o644); err != nil {
			s.t.Errorf("writing the figures: %v", err)
		}
	}
}
