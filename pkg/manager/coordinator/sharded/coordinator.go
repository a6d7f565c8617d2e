// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"sigs.k8s.io/multicluster-runtime/internal/metrics"
	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/peers"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/sharder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Coordinator splits a fleet between the replicas of a controller. See the package documentation.
type Coordinator struct {
	kube     client.Client
	id       string // this replica's peer ID; it never changes
	log      logr.Logger
	cfg      Config
	sharder  sharder.Sharder
	registry peers.Registry

	// fanout serialises engaging Awares with clusters (activations and registrations), so that every Aware sees
	// each activation once, in order. It is taken before mu, never after.
	fanout sync.Mutex

	// fleet are the clusters engaged with the coordinator: the clusters to split between the replicas.
	fleet *clusters.Engagements[struct{}]

	mu      sync.Mutex
	awares  []multicluster.Aware
	shards  map[multicluster.ClusterName]*shard
	self    sharder.PeerInfo // this replica as the registry last announced it (its weight may change)
	fence   fence            // nil until the coordinator runs
	started bool
	state   loopState
	kickCh  chan struct{}
	watch   *time.Timer // ends the work on clusters whose fence is no longer valid
}

// loopState is the ownership loop's view of the fleet, guarded by the coordinator's mu.
type loopState struct {
	stopping   bool
	members    []sharder.PeerInfo
	desired    map[multicluster.ClusterName]bool
	dirty      bool      // the clusters changed since the last assignment
	lastRehash time.Time // when the membership was last read
	peerSeen   map[string]peerSeen
}

// peerSeen is what the coordinator knows of a replica listed by the registry.
type peerSeen struct {
	firstSeen time.Time // when the registry first listed it without this replica having seen a fence of it
	hadFence  bool      // a fence of it has been seen
}

var (
	_ mcmanager.Coordinator     = &Coordinator{}
	_ mcmanager.AwareRegistrar  = &Coordinator{}
	_ mcmanager.ClusterWorkGate = &Coordinator{}
	_ clusters.WorkGate         = &shardGate{}
)

// New returns a sharded coordinator that keeps its fences in the host cluster kube talks to. kube must read from
// the API server, not from a cache (client.New, or better client.NewWithWatch, with which changes to other
// replicas' fences are seen at once rather than every Probe): the coordinator relies on its reads seeing every
// completed write. It needs get, list, watch, create, update and delete on coordination.k8s.io Leases in the fence
// namespace. Options are applied in order, then the defaults (see Config).
func New(kube client.Client, log logr.Logger, opts ...Option) *Coordinator {
	c := &Coordinator{
		kube:    kube,
		log:     log,
		sharder: sharder.NewBoundedHRW(0),
		shards:  map[multicluster.ClusterName]*shard{},
		kickCh:  make(chan struct{}, 1),
	}
	c.fleet = clusters.NewEngagements(c.clusterGone)
	for _, opt := range opts {
		opt(c)
	}
	c.cfg = c.cfg.withDefaults()
	if c.registry == nil {
		id, err := os.Hostname()
		if err != nil || id == "" {
			id = fmt.Sprintf("replica-%d", os.Getpid())
		}
		c.registry = peers.NewLeaseRegistry(kube, c.cfg.FenceNS, c.cfg.PeerPrefix, id, c.cfg.PeerWeight, log.WithName("peers"))
	}
	c.self = c.registry.Self()
	c.id = c.self.ID
	c.log = c.log.WithValues("peer", c.id)
	return c
}

// Config returns the configuration in use, defaults applied.
func (c *Coordinator) Config() Config { return c.cfg }

// ID returns this replica's peer ID.
func (c *Coordinator) ID() string { return c.id }

// Owned returns, sorted, the clusters this replica owns: it holds their fence and its Awares are engaged with
// them.
func (c *Coordinator) Owned() []multicluster.ClusterName {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []multicluster.ClusterName
	for name, s := range c.shards {
		if s.phase == active {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// SetPeerWeight changes this replica's weight at run time, if its peer registry supports it (peers.WeightSetter;
// the default Lease registry does). Clusters move to or from this replica with the usual handoff.
func (c *Coordinator) SetPeerWeight(weight uint32) error {
	ws, ok := c.registry.(peers.WeightSetter)
	if !ok {
		return fmt.Errorf("the peer registry %T cannot change weights", c.registry)
	}
	ws.SetWeight(weight)
	c.mu.Lock()
	c.state.lastRehash = time.Time{}
	c.mu.Unlock()
	c.kick()
	return nil
}

// AddAware registers an Aware and engages it with the clusters this replica owns. Failures are logged;
// RegisterAware returns them.
func (c *Coordinator) AddAware(aware multicluster.Aware) {
	if err := c.RegisterAware(aware); err != nil {
		c.log.Error(err, "Engaging a new runnable with the owned clusters failed")
	}
}

// RegisterAware registers an Aware: it is engaged with every cluster this replica owns now, with that ownership's
// context, and with every cluster it acquires later. It returns the failures, each naming its cluster.
func (c *Coordinator) RegisterAware(aware multicluster.Aware) error {
	c.fanout.Lock()
	defer c.fanout.Unlock()

	c.mu.Lock()
	c.awares = append(c.awares, aware)
	var owned []activation
	for _, s := range c.shards {
		if s.phase == active && s.act != nil && s.act.Err() == nil {
			owned = append(owned, activation{shard: s, ctx: s.act, cl: s.cl})
		}
	}
	c.mu.Unlock()

	var errs []error
	for _, a := range owned {
		if err := aware.Engage(a.ctx, a.shard.name, a.cl); err != nil {
			errs = append(errs, fmt.Errorf("engaging cluster %q: %w", a.shard.name, err))
		}
	}
	return errors.Join(errs...)
}

// Engage records a cluster of the fleet for the lifetime of ctx. It never blocks and never engages the Awares
// itself: the ownership loop does, if and while this replica owns the cluster. Engaging the same instance again
// is a no-op; another instance under the same name replaces the first, at once if this replica owns it.
func (c *Coordinator) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	if cl == nil {
		return fmt.Errorf("cluster %q: cannot engage a nil cluster", name)
	}
	c.mu.Lock()
	eng, _ := c.fleet.Engage(ctx, name, cl)
	if eng == nil {
		c.mu.Unlock()
		return nil
	}
	s := c.shards[name]
	if s == nil {
		s = &shard{name: name}
		s.gate = shardGate{c: c, s: s}
		c.shards[name] = s
	}
	// An owned cluster engaged again (a new instance, or the same one with a new context) is engaged again at once.
	replace := s.phase == active
	c.state.dirty = true
	var a activation
	var stopOld context.CancelFunc
	if replace {
		stopOld = s.stop
		a = c.activateLocked(s, eng)
	}
	c.mu.Unlock()

	if replace {
		c.log.Info("Replacing an owned cluster with a new instance", "cluster", name)
		c.engageAll(a)
		stopOld()
	}
	c.kick()
	return nil
}

// clusterGone runs when a cluster's engagement ends; the loop drains and releases it.
func (c *Coordinator) clusterGone(*clusters.Engagement[struct{}]) {
	c.mu.Lock()
	c.state.dirty = true
	c.mu.Unlock()
	c.kick()
}

// Runnable returns the ownership loop, which the manager runs: it renews this replica's fences and membership,
// and acquires, drains and releases clusters as the assignment changes. It does not need leader election: every
// replica runs it. When it stops (the manager stops), the replica drains every cluster, releases its fences and
// withdraws from the membership before it returns.
func (c *Coordinator) Runnable() manager.Runnable {
	return &loopRunnable{c: c}
}

// loopRunnable runs the ownership loop.
type loopRunnable struct{ c *Coordinator }

func (r *loopRunnable) Start(ctx context.Context) error { return r.c.run(ctx) }

// NeedLeaderElection is false: every replica runs the loop.
func (r *loopRunnable) NeedLeaderElection() bool { return false }

// StartClusterWork lets work on the cluster start only while this replica owns it and its fence is valid (its last
// renewal is younger than the renew deadline). The work's context ends when this replica stops working on the
// cluster; the cluster is not released before done has been called for every work started. The engagements the
// coordinator makes carry the same gate for their cluster (clusters.WorkGateFrom), which controllers use.
func (c *Coordinator) StartClusterWork(ctx context.Context, name multicluster.ClusterName) (context.Context, func(), bool) {
	c.mu.Lock()
	s := c.shards[name]
	c.mu.Unlock()
	if s == nil {
		return ctx, nil, false
	}
	return s.gate.StartWork(ctx)
}

// shardGate is the gate of a shard's work (clusters.WorkGate): it travels with the engagements of the cluster
// (clusters.WithWorkGate), so that a controller passes each reconcile through it without looking the cluster up.
type shardGate struct {
	c *Coordinator
	s *shard
}

// StartWork lets work on the cluster start only while this replica owns it and its fence is valid; see
// StartClusterWork.
func (g *shardGate) StartWork(ctx context.Context) (context.Context, func(), bool) {
	c, s := g.c, g.s
	c.mu.Lock()
	if s.phase != active || c.fence == nil || !validAt(time.Now(), c.fence.validUntil(s.name)) {
		c.mu.Unlock()
		return ctx, nil, false
	}
	s.inFlight++
	act, epoch := s.act, s.lostEpoch
	c.mu.Unlock()

	workCtx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(act, cancel)
	var once sync.Once
	return workCtx, func() {
		once.Do(func() {
			stop()
			cancel()
			c.workDone(s, epoch)
		})
	}, true
}

// workDone accounts for work that returned; the last one of a draining cluster lets the loop release it. Work
// that was still running when the cluster's fence stopped being valid (epoch changed) is counted as an overrun.
func (c *Coordinator) workDone(s *shard, epoch int) {
	c.mu.Lock()
	s.inFlight--
	overrun := s.lostEpoch != epoch
	last := s.inFlight == 0 && s.phase == draining
	c.mu.Unlock()
	if overrun {
		metrics.ShardFenceOverruns.WithLabelValues(c.id).Inc()
		c.log.Info("A reconcile returned after this replica's fence of its cluster stopped being valid", "cluster", s.name)
	}
	if last {
		c.kick()
	}
}

// kick wakes the ownership loop.
func (c *Coordinator) kick() {
	select {
	case c.kickCh <- struct{}{}:
	default:
	}
}
