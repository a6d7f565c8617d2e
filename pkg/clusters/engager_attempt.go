// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/internal/metrics"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// errSuperseded fails the engagement of a cluster whose target changed or went while it was synced.
var errSuperseded = errors.New("what the name should be changed during the attempt")

// attempt is one try of a worker to make a name be a target. It is the Aware the set engages the new cluster
// with: it checks that the target is still wanted, marks the cluster engaged and watches its lifetime before
// handing it on.
type attempt struct {
	e      *Engager
	r      *engageRun
	name   multicluster.ClusterName
	s      *slot
	gen    uint64
	target Target
	began  time.Time

	// life is the context of the attempt, which the new cluster's lifetime derives from; cancel aborts it.
	life   context.Context
	cancel context.CancelFunc
	// cl is the cluster built; replacing is set when another cluster was engaged under the name.
	cl        cluster.Cluster
	replacing bool
	// prev is what the slot had engaged when cl was handed on: it is engaged again if cl fails, and its context
	// released once cl is engaged.
	prev engagement
}

// engagement is a cluster engaged under a name: its lifetime, the run that engaged it, and the release of the
// attempt's context it lives in.
type engagement struct {
	cluster cluster.Cluster
	life    context.Context
	run     *engageRun
	release context.CancelFunc
}

// work applies what is wanted for name until it holds, what is wanted goes, a failure waits for its retry, or the
// run ends; then the worker exits.
func (e *Engager) work(r *engageRun, name multicluster.ClusterName, s *slot) {
	defer e.workers.Done()
	for {
		a := e.next(r, name, s)
		if a == nil {
			return
		}
		err := a.try()
		outcomes, done := e.settle(a, err)
		e.report(r, outcomes...)
		if done {
			return
		}
	}
}

// next returns the attempt to make for the slot, or nil, releasing the slot, when there is nothing to do.
func (e *Engager) next(r *engageRun, name multicluster.ClusterName, s *slot) *attempt {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.ctx.Err() != nil || !s.wanted || (s.current() && EqualConfigs(s.config, s.want.Config)) {
		s.busy = false
		if !s.wanted && s.engaged == nil && e.slots[name] == s {
			delete(e.slots, name)
		}
		return nil
	}
	life, cancel := WithLifetime(r.ctx)
	s.abort = cancel
	return &attempt{
		e: e, r: r, name: name, s: s, gen: s.gen, target: s.want, began: time.Now(),
		life: life, cancel: cancel, replacing: s.current(),
	}
}

// try builds the target's cluster and adds it to the set, which starts, syncs and engages it.
func (a *attempt) try() error {
	opts := slices.Concat(a.e.opts.ClusterOptions, a.target.Options)
	cl, err := a.e.opts.NewCluster(a.life, a.name, a.target, opts...)
	if err != nil {
		metrics.ClusterErrors.WithLabelValues(a.name.String(), "provider", "build").Inc()
		return fmt.Errorf("cluster %q: building the cluster: %w", a.name, err)
	}
	a.cl = cl
	return a.e.set.AddOrReplace(a.life, a.name, cl, a)
}

// Engage is called by the set once the new cluster has synced, and again with the previous cluster if engaging
// the new one failed. It engages the new cluster only if its target is still what the name should be.
func (a *attempt) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	e, s := a.e, a.s
	e.mu.Lock()
	if cl != a.cl {
		// The previous cluster, engaged again after the new one failed: it is the name's cluster again.
		if s.engaged == a.cl {
			s.setEngaged(a.prev)
		}
		e.mu.Unlock()
		return a.r.aware.Engage(ctx, name, cl)
	}
	if s.gen != a.gen || a.life.Err() != nil {
		e.mu.Unlock()
		return errSuperseded
	}
	a.prev = engagement{cluster: s.engaged, life: s.life, run: s.run, release: s.release}
	s.setEngaged(engagement{cluster: cl, life: ctx, run: a.r, release: a.cancel})
	e.mu.Unlock()
	// When the cluster ends while it is still the name's cluster, it stopped on its own (or its run ended).
	AfterFunc(ctx, func() { e.ended(name, s, cl) })

	e.report(a.r, Outcome{Name: name, Kind: OutcomeEngaging, Target: a.target, Cluster: cl})
	return a.r.aware.Engage(ctx, name, cl)
}

// settle records the end of an attempt and returns what to report, and whether the worker is done.
func (e *Engager) settle(a *attempt, err error) ([]Outcome, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := a.s
	s.abort = nil
	superseded := s.gen != a.gen

	if err == nil && a.life.Err() == nil {
		if cur, _ := e.set.GetTyped(context.Background(), a.name); cur != a.cl {
			// The set found an equal cluster engaged already and did not engage this one: adopt that one.
			a.cancel()
			if cur != nil && s.engaged != cur {
				s.setEngaged(engagement{cluster: cur, life: context.Background(), run: a.r})
			}
			s.config = a.target.Config
			return nil, e.doneLocked(s, superseded)
		}
		// Engaged: the cluster it replaced is stopped, and the context that one lived in can go.
		if a.prev.release != nil {
			a.prev.release()
		}
		s.config = a.target.Config
		s.failures = 0
		kind := OutcomeAdded
		if a.replacing {
			kind = OutcomeReplaced
		}
		o := Outcome{Name: a.name, Kind: kind, Target: a.target, Cluster: a.cl, Duration: time.Since(a.began)}
		return []Outcome{o}, e.doneLocked(s, superseded)
	}

	// Failed, or ended (aborted because superseded, or by its run, or the cluster stopped) after the new cluster
	// was engaged, which stopped the cluster it replaced: nothing of the attempt is left.
	a.cancel()
	if s.engaged == a.cl {
		s.setEngaged(engagement{})
	}
	switch {
	case superseded:
		return nil, false
	case a.r.ctx.Err() != nil:
		s.busy = false
		return nil, true
	case err == nil:
		err = fmt.Errorf("cluster %q stopped while it was being engaged", a.name)
	}

	err = redacted(err, a.target.Config)
	o := Outcome{Name: a.name, Kind: OutcomeFailed, Target: a.target, Err: err, Duration: time.Since(a.began)}
	s.busy = false
	if a.r.once {
		a.r.errs = append(a.r.errs, err)
		return []Outcome{o}, true
	}
	o.RetryIn = e.retryLaterLocked(a.name, s)
	return []Outcome{o}, true
}

// doneLocked reports whether the worker is done after an attempt: it goes on if what the name should be changed
// meanwhile (its next attempt finds out what to do), and otherwise releases the slot. The caller holds mu.
func (e *Engager) doneLocked(s *slot, superseded bool) bool {
	if superseded {
		return false
	}
	s.busy = false
	return true
}

// retryLaterLocked counts a failure of the slot and arms the timer of its next attempt, whose delay it returns.
// The caller holds mu.
func (e *Engager) retryLaterLocked(name multicluster.ClusterName, s *slot) time.Duration {
	s.failures++
	delay := e.opts.retryDelay(s.failures)
	var timer *time.Timer
	timer = time.AfterFunc(delay, func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		if s.retry == timer {
			s.retry = nil
			e.startWorkerLocked(name, s)
		}
	})
	s.retry = timer
	return delay
}

// ended is called when the lifetime of a cluster engaged under name ends. If it was still the name's cluster, it
// stopped on its own or with its run: it is forgotten, and, if the name is still wanted and a Start runs, it is
// built again after the retry delay.
func (e *Engager) ended(name multicluster.ClusterName, s *slot, cl cluster.Cluster) {
	e.mu.Lock()
	if s.engaged != cl {
		e.mu.Unlock()
		return
	}
	r := s.run
	if s.release != nil {
		s.release()
	}
	s.setEngaged(engagement{})
	var o []Outcome
	switch {
	case s.busy || s.retry != nil:
	case s.wanted && e.run == r && r.live() && !r.once:
		err := fmt.Errorf("cluster %q stopped", name)
		o = append(o, Outcome{Name: name, Kind: OutcomeFailed, Target: s.want, Err: err, RetryIn: e.retryLaterLocked(name, s)})
	case !s.wanted && e.slots[name] == s:
		delete(e.slots, name)
	}
	e.mu.Unlock()
	e.report(r, o...)
}

// redacted returns err with the credentials of cfg replaced in its message; it still unwraps to err.
func redacted(err error, cfg *rest.Config) error {
	if cfg == nil {
		return err
	}
	msg := err.Error()
	clean := redactValues(msg, cfg.BearerToken, cfg.Password, string(cfg.CertData), string(cfg.KeyData))
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

// redactedError is an error whose message has credentials redacted.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
