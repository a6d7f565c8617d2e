// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package recovery

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"

	"sigs.k8s.io/multicluster-runtime/internal/metrics"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// probeFunc asks the cluster's API server whether it answers; nil means it does.
type probeFunc func(ctx context.Context) error

// Gate holds back the list and watch calls of one cluster's informers while the cluster cannot be reached, and
// releases them all at once when a readiness probe is answered. The zero value is not usable; a Gate is made by
// ClusterOption (or newGate in tests). It is safe for concurrent use.
type Gate struct {
	name  multicluster.ClusterName
	opts  Options
	probe probeFunc
	log   logr.Logger

	// failing mirrors state.failing for the fast path of Wait; clean is set while there is nothing for
	// Succeeded to reset.
	failing atomic.Bool
	clean   atomic.Bool

	mu sync.Mutex
	// since is when the current outage began, and lastErr the error that began it.
	since   time.Time
	lastErr error
	// open is closed when the current outage ends; a new one is made when an outage begins.
	open chan struct{}
	// probing is set while a waiting call runs the probes; proberDone is closed when it stops, answered or not,
	// so that another waiting call takes over.
	probing    bool
	proberDone chan struct{}
	// attempt counts the probes of the current outage; strikes counts outages that began again before any call
	// succeeded after the previous one ended.
	attempt int
	strikes int
	// reopened is set when an outage ended and no call has succeeded since.
	reopened bool
}

// newGate returns the gate of the named cluster, healthy.
func newGate(name multicluster.ClusterName, opts Options, probe probeFunc, log logr.Logger) *Gate {
	g := &Gate{name: name, opts: opts.withDefaults(), probe: probe, log: log}
	g.clean.Store(true)
	return g
}

// Failing reports whether the gate holds calls back.
func (g *Gate) Failing() bool { return g.failing.Load() }

// Wait returns at once while the cluster is healthy. While it is failing, Wait blocks until a readiness probe is
// answered (it may run the probes itself) or ctx ends, and returns ctx's error in the latter case.
func (g *Gate) Wait(ctx context.Context) error {
	if !g.failing.Load() {
		return nil
	}
	for {
		g.mu.Lock()
		if !g.failing.Load() {
			g.mu.Unlock()
			return nil
		}
		open := g.open
		if !g.probing {
			g.probing = true
			done := make(chan struct{})
			g.proberDone = done
			g.mu.Unlock()
			answered := g.probeUntilAnswered(ctx)
			g.mu.Lock()
			g.probing = false
			close(done)
			g.mu.Unlock()
			if !answered {
				return ctx.Err()
			}
			return nil
		}
		done := g.proberDone
		g.mu.Unlock()
		select {
		case <-open:
			return nil
		case <-done:
			// The prober's informer stopped before the cluster answered: take over.
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Failed records that a call failed because the cluster could not be reached, which begins an outage unless one
// is going on.
func (g *Gate) Failed(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.failing.Load() {
		return
	}
	if g.reopened {
		g.strikes++
	}
	g.reopened = false
	g.clean.Store(false)
	g.since, g.lastErr, g.attempt = time.Now(), err, 0
	g.open = make(chan struct{})
	g.failing.Store(true)
	metrics.ClusterErrors.WithLabelValues(g.name.String(), "informers", "unreachable").Inc()
	if g.strikes == 0 {
		g.log.Error(err, "Cluster cannot be reached; its informers wait until it answers a readiness probe")
	} else {
		g.log.V(1).Info("Cluster cannot be reached again right after it answered a readiness probe; probing less often",
			"error", err.Error(), "strikes", g.strikes)
	}
}

// Succeeded records that a call succeeded: the cluster is healthy, and an outage that begins later starts with
// the shortest probe interval again.
func (g *Gate) Succeeded() {
	if g.clean.Load() {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.failing.Load() {
		// A call sent before the outage began; it says nothing about now.
		return
	}
	g.reopened, g.strikes = false, 0
	g.clean.Store(true)
}

// probeUntilAnswered probes the cluster, backing off, until a probe is answered (it then ends the outage and
// returns true) or ctx ends (false).
func (g *Gate) probeUntilAnswered(ctx context.Context) bool {
	for {
		timer := time.NewTimer(g.nextInterval())
		select {
		case <-ctx.Done():
			timer.Stop()
			return false
		case <-timer.C:
		}
		probeCtx, cancel := context.WithTimeout(ctx, g.opts.ProbeTimeout)
		err := g.probe(probeCtx)
		cancel()
		if ctx.Err() != nil {
			return false
		}
		if err == nil {
			g.answered()
			return true
		}
		g.log.V(4).Info("Readiness probe not answered", "error", err.Error())
	}
}

// nextInterval returns the wait before the next probe and counts the probe.
func (g *Gate) nextInterval() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	base, limit := g.opts.InitialProbeInterval, g.opts.MaxProbeInterval
	if g.strikes > 0 {
		limit = g.opts.MaxStrikeInterval
		base = min(g.opts.MaxProbeInterval<<min(g.strikes-1, 16), limit)
	}
	d := min(base<<min(g.attempt, 16), limit)
	g.attempt++
	return wait.Jitter(d, probeJitter)
}

// relist returns the error that makes a reflector list again rather than resume its watch: an expired resource
// version, which client-go's reflector takes quietly.
func (g *Gate) relist() error {
	return apierrors.NewResourceExpired(fmt.Sprintf("cluster %q cannot be reached; listing again once it answers", g.name))
}

// answered ends the outage: every waiting call proceeds.
func (g *Gate) answered() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.failing.Load() {
		return
	}
	g.failing.Store(false)
	g.reopened = true
	close(g.open)
	g.log.Info("Cluster answers again; its informers resume", "unreachableFor", time.Since(g.since).Round(time.Millisecond),
		"probes", g.attempt)
}
