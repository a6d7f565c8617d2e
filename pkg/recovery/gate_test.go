// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package recovery

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"go.uber.org/goleak"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
)

// fastOptions keep the unit tests quick.
var fastOptions = Options{InitialProbeInterval: time.Millisecond, MaxProbeInterval: 5 * time.Millisecond, MaxStrikeInterval: 40 * time.Millisecond}

// scriptedProbe answers as up says and counts its calls.
type scriptedProbe struct {
	up    atomic.Bool
	calls atomic.Int64
}

func (p *scriptedProbe) probe(context.Context) error {
	p.calls.Add(1)
	if p.up.Load() {
		return nil
	}
	return errors.New("connection refused")
}

var refused = &url.Error{Op: "Get", URL: "https://127.0.0.1:1", Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}

func TestUnreachable(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{refused, true},
		{fmt.Errorf("watch: %w", syscall.ECONNRESET), true},
		{errors.New("http2: client connection lost"), true},
		{&url.Error{Op: "Get", URL: "https://x", Err: context.DeadlineExceeded}, true},
		{&net.OpError{Op: "dial", Err: syscall.EHOSTUNREACH}, true},
		{apierrors.NewServiceUnavailable("shutting down"), true},
		{apierrors.NewForbidden(gr, "x", errors.New("no")), false},
		{apierrors.NewNotFound(gr, "x"), false},
		{apierrors.NewTooManyRequests("slow down", 1), false},
		{apierrors.NewResourceExpired("too old resource version"), false},
		{apierrors.NewInternalError(errors.New("boom")), false},
		{errors.New("x509: certificate signed by unknown authority"), false},
	} {
		if got := Unreachable(tc.err); got != tc.want {
			t.Errorf("Unreachable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// A healthy gate never probes and never blocks; a failure holds every caller back until a probe is answered, then
// lets them all through at once.
func TestGate(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := &scriptedProbe{}
	g := newGate("c", fastOptions, p.probe, logr.Discard())
	for range 100 {
		if err := g.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		g.Succeeded()
	}
	if p.calls.Load() != 0 || g.Failing() {
		t.Fatalf("a healthy gate probed %d times (failing %v)", p.calls.Load(), g.Failing())
	}

	g.Failed(refused)
	if !g.Failing() {
		t.Fatal("the gate is not failing after a failure")
	}
	const waiters = 10
	var released atomic.Int64
	var wg sync.WaitGroup
	for range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := g.Wait(t.Context()); err == nil {
				released.Add(1)
			}
		}()
	}
	// The probes back off while the cluster is down: a few dozen at most in this time, not one per waiter per
	// millisecond.
	pollUntil(t, "several probes", func() bool { return p.calls.Load() >= 5 })
	if released.Load() != 0 {
		t.Fatal("callers were released while the probe is not answered")
	}
	p.up.Store(true)
	wg.Wait()
	if released.Load() != waiters || g.Failing() {
		t.Fatalf("%d of %d callers released, failing %v", released.Load(), waiters, g.Failing())
	}
}

// A caller that gives up while it runs the probes hands them over to another; one that gives up while waiting
// returns its context's error.
func TestGateHandOver(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := &scriptedProbe{}
	g := newGate("c", fastOptions, p.probe, logr.Discard())
	g.Failed(refused)

	first, cancelFirst := context.WithCancel(t.Context())
	firstDone := make(chan error, 1)
	go func() { firstDone <- g.Wait(first) }()
	pollUntil(t, "the first caller probes", func() bool { return p.calls.Load() > 0 })

	secondDone := make(chan error, 1)
	go func() { secondDone <- g.Wait(t.Context()) }()
	cancelFirst()
	if err := <-firstDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled caller returned %v", err)
	}
	before := p.calls.Load()
	pollUntil(t, "the second caller probes", func() bool { return p.calls.Load() > before+2 })
	p.up.Store(true)
	if err := <-secondDone; err != nil {
		t.Fatalf("the second caller returned %v", err)
	}
}

// A cluster that answers the probe but fails the call right after (strikes) is probed less and less often, up to
// MaxStrikeInterval; a successful call resets that.
func TestGateStrikes(t *testing.T) {
	p := &scriptedProbe{}
	p.up.Store(true)
	g := newGate("c", fastOptions, p.probe, logr.Discard())
	intervals := make([]time.Duration, 0, 6)
	for range 6 {
		g.Failed(refused)
		intervals = append(intervals, g.peekInterval())
		if err := g.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < len(intervals); i++ {
		// Up to 10% jitter either way.
		if float64(intervals[i]) < 0.85*float64(intervals[i-1]) {
			t.Errorf("the first probe interval shrank from %s to %s while strikes grow: %v", intervals[i-1], intervals[i], intervals)
		}
	}
	if last := intervals[len(intervals)-1]; last < fastOptions.MaxStrikeInterval/2 {
		t.Errorf("after 6 strikes the probe interval is %s, want it near MaxStrikeInterval %s", last, fastOptions.MaxStrikeInterval)
	}
	g.Succeeded()
	g.Failed(refused)
	if d := g.peekInterval(); d > 2*fastOptions.InitialProbeInterval {
		t.Errorf("after a successful call the first probe interval is %s, want the initial %s", d, fastOptions.InitialProbeInterval)
	}
}

// peekInterval returns the next probe interval without counting a probe.
func (g *Gate) peekInterval() time.Duration {
	d := g.nextInterval()
	g.mu.Lock()
	g.attempt--
	g.mu.Unlock()
	return d
}

// pollUntil polls cond every millisecond and fails the test after 10 s.
func pollUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("timed out waiting for %s", what)
	}
}
