// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"sigs.k8s.io/multicluster-runtime/internal/metrics"
	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/internal/leases"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/peers"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// activationBackoff paces claims of a cluster whose activation failed: doubled per failure, up to a minute.
const activationBackoff = time.Second

// run is the ownership loop; see Runnable.
func (c *Coordinator) run(ctx context.Context) error {
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return errors.New("the sharded coordinator is already running")
	}
	c.started = true
	if c.cfg.PerClusterLease {
		c.fence = newClusterFence(c.kube, c.cfg, c.id, c.log.WithName("fence"), c.kick)
	} else {
		c.fence = newReplicaFence(c.kube, c.cfg, c.id, leases.Name(c.cfg.FencePrefix, c.id), c.log.WithName("fence"), c.kick)
	}
	c.state.peerSeen = map[string]peerSeen{}
	c.state.desired = map[multicluster.ClusterName]bool{}
	c.watch = time.AfterFunc(time.Hour, c.onWatch)
	c.watch.Stop()
	fence := c.fence
	c.mu.Unlock()

	if ts, ok := c.registry.(peers.LeaseTimingsSetter); ok {
		ts.SetLeaseTimings(c.cfg.LeaseDuration, c.cfg.LeaseRenew)
	}
	regCtx, stopRegistry := context.WithCancel(ctx)
	fenceCtx, stopFence := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := c.registry.Run(regCtx); err != nil && regCtx.Err() == nil {
			c.log.Error(err, "The peer registry stopped")
		}
	})
	wg.Go(func() { _ = fence.run(fenceCtx) })
	defer func() {
		stopFence()
		stopRegistry()
		wg.Wait()
		c.watch.Stop()
	}()

	c.log.Info("Sharded coordinator starting", "perClusterLease", c.cfg.PerClusterLease, "namespace", c.cfg.FenceNS,
		"fencePrefix", c.cfg.FencePrefix, "leaseDuration", c.cfg.LeaseDuration, "renewDeadline", c.cfg.renewDeadline())
	if !c.waitSynced(ctx, fence) {
		return nil
	}

	loopCtx := ctx
	stopSignal := ctx.Done()
	var deadline <-chan time.Time
	cancelShutdown := func() {}
	defer func() { cancelShutdown() }()
	for {
		c.round(loopCtx)

		c.mu.Lock()
		finished := c.state.stopping && c.allIdleLocked()
		wake := c.nextWakeLocked(time.Now())
		c.mu.Unlock()
		if finished {
			break
		}
		timer := time.NewTimer(time.Until(wake))
		select {
		case <-stopSignal:
			// Leave: withdraw from the membership at once, drain and release every cluster, then return.
			c.log.Info("Sharded coordinator stopping: draining and releasing every cluster")
			stopSignal = nil
			c.mu.Lock()
			c.state.stopping = true
			c.state.lastRehash = time.Time{}
			c.mu.Unlock()
			stopRegistry()
			shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*c.cfg.LeaseDuration)
			cancelShutdown = cancel
			loopCtx = shutdownCtx
			deadline = nil
			if dl, ok := shutdownCtx.Deadline(); ok {
				deadline = time.After(time.Until(dl))
			}
		case <-c.kickCh:
		case <-timer.C:
		case <-deadline:
			timer.Stop()
			c.log.Error(errors.New("shutdown deadline exceeded"), "Stopping with clusters not yet released; the other replicas take them once the fences expire", "clusters", c.notIdle())
			return nil
		}
		timer.Stop()
	}
	fence.shutdown(loopCtx)
	c.log.Info("Sharded coordinator stopped: every cluster released")
	return nil
}

// waitSynced waits until the fences and the peer registry have been read once, so that a starting replica does
// not claim clusters because it has not seen the others yet. It reports false if ctx ended first.
func (c *Coordinator) waitSynced(ctx context.Context, f fence) bool {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		regSynced := true
		if s, ok := c.registry.(peers.Syncer); ok {
			regSynced = s.HasSynced()
		}
		if regSynced && f.synced() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// round is one round of the ownership loop: judge the fences, update the assignment, move every cluster along its
// state machine, write and read the fences, and engage the Awares with the clusters acquired.
func (c *Coordinator) round(ctx context.Context) {
	now := time.Now()
	c.mu.Lock()
	c.expireLocked(now)
	if now.Sub(c.state.lastRehash) >= c.cfg.Rehash {
		c.rehashLocked(now)
	}
	acts := c.stepLocked(now)
	r := c.planLocked()
	f := c.fence
	c.mu.Unlock()

	res := f.sync(ctx, r)

	c.mu.Lock()
	acts = append(acts, c.applyLocked(res, time.Now())...)
	c.armWatchLocked(time.Now())
	c.reportLocked()
	c.mu.Unlock()

	for _, a := range acts {
		c.engageAll(a)
	}
}

// wantLocked returns the cluster's engagement if this replica should own the cluster now, nil otherwise.
func (c *Coordinator) wantLocked(s *shard) *clusters.Engagement[struct{}] {
	if !c.state.desired[s.name] || c.state.stopping {
		return nil
	}
	return c.fleet.Get(s.name)
}

// goneLocked reports whether the cluster's engagement has ended.
func (c *Coordinator) goneLocked(s *shard) bool {
	return c.fleet.Get(s.name) == nil
}

// expireLocked stops the work on every owned cluster whose fence is no longer valid.
func (c *Coordinator) expireLocked(now time.Time) {
	for _, s := range c.shards {
		if s.phase == active && !validAt(now, c.fence.validUntil(s.name)) {
			c.log.Info("Lost cluster: its fence was not renewed within the renew deadline; stopping its work", "cluster", s.name)
			metrics.ShardHandoffs.WithLabelValues(c.id, "lost").Inc()
			c.drainLocked(s, now, true)
		}
	}
}

// onWatch runs when the earliest fence of an owned cluster stops being valid, even if the loop is blocked on the
// API server: the work on such clusters stops at once.
func (c *Coordinator) onWatch() {
	c.mu.Lock()
	c.expireLocked(time.Now())
	c.armWatchLocked(time.Now())
	c.mu.Unlock()
	c.kick()
}

// armWatchLocked sets the watchdog to the earliest end of validity of an owned cluster's fence.
func (c *Coordinator) armWatchLocked(now time.Time) {
	var next time.Time
	for _, s := range c.shards {
		if s.phase == active {
			next = earliest(next, c.fence.validUntil(s.name))
		}
	}
	if next.IsZero() {
		c.watch.Stop()
		return
	}
	c.watch.Reset(max(next.Sub(now), 0))
}

// drainLocked stops the Awares' work on an owned cluster; the loop releases it once no reconcile is in flight.
func (c *Coordinator) drainLocked(s *shard, now time.Time, lost bool) {
	s.phase = draining
	s.since = now
	s.stop()
	if lost {
		s.lost = true
		s.lostEpoch++
	}
}

// activateLocked makes the cluster owned and returns the engagement to make: with a context that ends when this
// replica stops working on the cluster, and carries the shard's gate.
func (c *Coordinator) activateLocked(s *shard, eng *clusters.Engagement[struct{}]) activation {
	act, stop := context.WithCancel(eng.Context())
	s.act, s.cl, s.stop = clusters.WithWorkGate(act, &s.gate), eng.Cluster(), stop
	s.phase = active
	s.lost = false
	return activation{shard: s, ctx: s.act, cl: s.cl}
}

// stepLocked moves every cluster along its state machine (see phase) and returns the clusters to engage again.
func (c *Coordinator) stepLocked(now time.Time) []activation {
	var acts []activation
	for name, s := range c.shards {
		eng := c.wantLocked(s)
		want := eng != nil
		switch s.phase {
		case idle:
			if s.inFlight == 0 && c.goneLocked(s) {
				delete(c.shards, name)
				continue
			}
			if want && !now.Before(s.retryAt) && c.fence.mayClaim(name, now) {
				s.phase = claiming
				s.since = now
				c.log.V(1).Info("Claiming cluster", "cluster", name)
			}
		case claiming:
			if !want || !c.fence.mayClaim(name, now) {
				s.phase = idle
			}
		case active:
			if !want {
				c.log.Info("Draining cluster: no longer assigned to this replica", "cluster", name, "gone", c.goneLocked(s), "stopping", c.state.stopping)
				c.drainLocked(s, now, false)
			}
		case draining:
			if s.inFlight > 0 {
				continue
			}
			valid := validAt(now, c.fence.validUntil(name))
			switch {
			case want && !s.lost && valid && !now.Before(s.retryAt):
				acts = append(acts, c.activateLocked(s, eng))
			case want && s.lost:
				s.phase = claiming
				s.since = now
			default:
				s.phase = releasing
			}
		case releasing:
			if want && !s.lost && validAt(now, c.fence.validUntil(name)) && !now.Before(s.retryAt) {
				acts = append(acts, c.activateLocked(s, eng))
			}
		}
	}
	return acts
}

// planLocked returns what the fences must hold, claim and release.
func (c *Coordinator) planLocked() round {
	var r round
	for name, s := range c.shards {
		switch s.phase {
		case active, draining:
			r.held = append(r.held, name)
		case claiming:
			r.claims = append(r.claims, name)
		case releasing:
			r.release = append(r.release, name)
		case idle:
		}
	}
	slices.Sort(r.held)
	slices.Sort(r.claims)
	slices.Sort(r.release)
	return r
}

// applyLocked applies what the fences did and returns the clusters acquired, to engage.
func (c *Coordinator) applyLocked(res roundResult, now time.Time) []activation {
	for _, name := range res.released {
		s := c.shards[name]
		if s == nil || s.phase != releasing {
			continue
		}
		c.log.Info("Released cluster", "cluster", name, "drainAndRelease", now.Sub(s.since).String(), "lost", s.lost)
		metrics.ShardHandoffs.WithLabelValues(c.id, "released").Inc()
		metrics.ShardHandoffDuration.WithLabelValues(c.id, "release").Observe(now.Sub(s.since).Seconds())
		s.phase = idle
		s.lost = false
		if c.goneLocked(s) {
			delete(c.shards, name)
		}
	}
	for _, name := range res.retracted {
		if s := c.shards[name]; s != nil && s.phase == claiming {
			s.phase = idle
		}
	}
	var acts []activation
	for _, name := range res.acquired {
		s := c.shards[name]
		if s == nil || s.phase != claiming {
			continue
		}
		eng := c.wantLocked(s)
		if eng == nil {
			s.phase = releasing
			s.since = now
			continue
		}
		c.log.Info("Acquired cluster", "cluster", name, "after", now.Sub(s.since).String())
		metrics.ShardHandoffs.WithLabelValues(c.id, "acquired").Inc()
		metrics.ShardHandoffDuration.WithLabelValues(c.id, "acquire").Observe(now.Sub(s.since).Seconds())
		acts = append(acts, c.activateLocked(s, eng))
	}
	return acts
}

// engageAll engages every Aware with a cluster acquired. If one fails, the cluster is drained and released, and
// claimed again after a backoff.
func (c *Coordinator) engageAll(a activation) {
	c.fanout.Lock()
	defer c.fanout.Unlock()
	c.mu.Lock()
	if a.shard.act != a.ctx || a.shard.phase != active {
		c.mu.Unlock()
		return
	}
	awares := slices.Clone(c.awares)
	c.mu.Unlock()

	var errs []error
	for _, aware := range awares {
		if err := aware.Engage(a.ctx, a.shard.name, a.cl); err != nil {
			errs = append(errs, err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(errs) == 0 {
		a.shard.failures = 0
		return
	}
	err := fmt.Errorf("engaging cluster %q: %w", a.shard.name, errors.Join(errs...))
	metrics.ClusterErrors.WithLabelValues(a.shard.name.String(), "coordinator", "engage").Inc()
	if a.shard.act == a.ctx && a.shard.phase == active {
		a.shard.failures++
		delay := min(activationBackoff<<min(a.shard.failures-1, 6), time.Minute)
		a.shard.retryAt = time.Now().Add(delay)
		c.log.Error(err, "Engaging an acquired cluster failed; releasing it and claiming it again later", "retryAfter", delay)
		c.drainLocked(a.shard, time.Now(), false)
	}
	c.kick()
}

// nextWakeLocked is when the loop must run again at the latest.
func (c *Coordinator) nextWakeLocked(now time.Time) time.Time {
	wake := earliest(now.Add(c.cfg.Probe), c.state.lastRehash.Add(c.cfg.Rehash), c.fence.nextWake(now))
	for _, s := range c.shards {
		if s.phase == idle && s.retryAt.After(now) {
			wake = earliest(wake, s.retryAt)
		}
	}
	return wake
}

// allIdleLocked reports whether this replica neither holds nor claims any cluster.
func (c *Coordinator) allIdleLocked() bool {
	for _, s := range c.shards {
		if s.phase != idle {
			return false
		}
	}
	return true
}

// notIdle names the clusters this replica still holds or claims.
func (c *Coordinator) notIdle() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for name, s := range c.shards {
		if s.phase != idle {
			out = append(out, fmt.Sprintf("%s (%s)", name, s.phase))
		}
	}
	slices.Sort(out)
	return out
}

// reportLocked updates the metrics of this replica.
func (c *Coordinator) reportLocked() {
	owned := 0
	for _, s := range c.shards {
		if s.phase == active {
			owned++
		}
	}
	metrics.ShardOwnedClusters.WithLabelValues(c.id).Set(float64(owned))
	metrics.ShardPeers.WithLabelValues(c.id).Set(float64(len(c.state.members)))
}
