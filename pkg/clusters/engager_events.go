// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"context"
	"sync"

	"k8s.io/client-go/util/flowcontrol"
)

// Defaults of EngagerOptions.EngagedEventRate and EngagedEventBurst.
const (
	// DefaultEngagedEventRate is how many Normal Events about engaged clusters an engager records per second once
	// its burst is spent.
	DefaultEngagedEventRate = 10
	// DefaultEngagedEventBurst is how many Normal Events about engaged clusters an engager records at once.
	DefaultEngagedEventBurst = 100
	// maxPendingEvents bounds the Events an engager holds back; beyond it, new ones are dropped.
	maxPendingEvents = 10000
)

// eventPacer spreads the Normal Events of an engager over time, so that a fleet engaged at once (a thousand
// clusters at a controller's start) writes its Events to the host at a steady rate instead of competing with the
// engagement itself for the host's API server. Events held back are recorded in order by one goroutine, which ends
// when none is left or the run it belongs to ends (the rest are dropped then).
type eventPacer struct {
	limiter flowcontrol.RateLimiter // nil: no limit

	mu       sync.Mutex
	pending  []func()
	draining bool
}

// newEventPacer returns a pacer of rate Events per second after a burst of burst; a negative rate means no limit.
func newEventPacer(rate float64, burst int) *eventPacer {
	if rate < 0 {
		return &eventPacer{}
	}
	return &eventPacer{limiter: flowcontrol.NewTokenBucketRateLimiter(float32(rate), burst)}
}

// record calls send now if the rate allows and nothing is held back, and otherwise holds it back for a goroutine
// that calls it in turn, counted by wg and ending with ctx. It returns false if send was dropped, the pacer
// holding as many as it may.
func (p *eventPacer) record(ctx context.Context, wg *sync.WaitGroup, send func()) bool {
	p.mu.Lock()
	if p.limiter == nil || len(p.pending) == 0 && p.limiter.TryAccept() {
		p.mu.Unlock()
		send()
		return true
	}
	if len(p.pending) >= maxPendingEvents {
		p.mu.Unlock()
		return false
	}
	p.pending = append(p.pending, send)
	start := !p.draining
	p.draining = true
	p.mu.Unlock()
	if start {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.drain(ctx)
		}()
	}
	return true
}

// drain calls the held-back sends as the rate allows until none is left, or drops them when ctx ends.
func (p *eventPacer) drain(ctx context.Context) {
	for {
		err := p.limiter.Wait(ctx)
		p.mu.Lock()
		if err != nil || len(p.pending) == 0 {
			p.pending, p.draining = nil, false
			p.mu.Unlock()
			return
		}
		send := p.pending[0]
		p.pending[0] = nil
		p.pending = p.pending[1:]
		p.mu.Unlock()
		send()
	}
}
