// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// A burst is recorded at once; the rest follow in order at the rate, from one goroutine that ends when none is left.
func TestEventPacerBurstThenRate(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := newEventPacer(200, 3)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		sent []int
	)
	for i := range 10 {
		if !p.record(t.Context(), &wg, func() { mu.Lock(); sent = append(sent, i); mu.Unlock() }) {
			t.Fatalf("event %d dropped", i)
		}
	}
	mu.Lock()
	if len(sent) != 3 {
		t.Errorf("%d Events recorded at once, want the burst of 3", len(sent))
	}
	mu.Unlock()
	wg.Wait()
	for i, got := range sent {
		if got != i {
			t.Fatalf("recorded in the order %v", sent)
		}
	}
	if len(sent) != 10 {
		t.Errorf("%d Events recorded in all, want 10", len(sent))
	}
}

// When the run ends, the Events held back are dropped and the goroutine ends; a negative rate holds nothing back.
func TestEventPacerEndsWithTheRun(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := newEventPacer(0.001, 1)
	ctx, cancel := context.WithCancel(t.Context())
	var (
		wg   sync.WaitGroup
		sent atomic.Int32
	)
	for range 5 {
		p.record(ctx, &wg, func() { sent.Add(1) })
	}
	cancel()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the pacer's goroutine did not end with its run")
	}
	if got := sent.Load(); got != 1 {
		t.Errorf("%d Events recorded, want the burst of 1", got)
	}

	unlimited := newEventPacer(-1, 0)
	for range 1000 {
		unlimited.record(t.Context(), &wg, func() { sent.Add(1) })
	}
	if got := sent.Load(); got != 1001 {
		t.Errorf("with no limit, %d Events recorded at once, want all", got-1)
	}
}

// The pacer holds back at most maxPendingEvents; beyond, record says it dropped the Event.
func TestEventPacerBounded(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	p := newEventPacer(0.001, 1)
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	p.record(ctx, &wg, func() {})
	for i := range maxPendingEvents {
		if !p.record(ctx, &wg, func() {}) {
			t.Fatalf("event %d dropped below the bound", i)
		}
	}
	if p.record(ctx, &wg, func() {}) {
		t.Error("an Event beyond the bound was held back")
	}
}
