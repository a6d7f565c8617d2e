// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded

import (
	"time"

	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/peers"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/sharder"
)

// Defaults of Config, applied by New to the fields left zero.
const (
	DefaultFenceNamespace = "kube-system"
	DefaultFencePrefix    = "mcr-shard"
	DefaultPeerPrefix     = "mcr-peer"
	DefaultPeerWeight     = 1
	DefaultLeaseDuration  = 15 * time.Second
	DefaultLeaseRenew     = 5 * time.Second
	DefaultFenceThrottle  = 200 * time.Millisecond
	DefaultProbe          = 1 * time.Second
	DefaultRehash         = 200 * time.Millisecond
)

// Config is the configuration of a sharded Coordinator. Options set it; New applies the defaults (the Default*
// constants) to the fields left zero, in one step.
type Config struct {
	// FenceNS is the namespace of the host cluster that holds the fences and the replicas' Leases (default
	// "kube-system").
	FenceNS string
	// FencePrefix prefixes the names of the fence Leases (default "mcr-shard"). With replica fences (the default)
	// replica R's fence is the Lease <FencePrefix>-<R>; with per-cluster fences cluster C's is <FencePrefix>-<C>.
	// Controllers sharded independently on one host cluster need different prefixes.
	FencePrefix string
	// PerClusterLease fences every cluster with a Lease of its own, whose holderIdentity is the owner, instead of
	// one fence Lease per replica listing the clusters it holds; each replica then keeps a heartbeat Lease,
	// <FencePrefix>.replica-<R>, for the membership. It costs one Lease write per cluster per LeaseRenew (about 200
	// writes a second at 1,000 clusters with the default timings, which the client's rate limit must allow),
	// against a couple per replica.
	PerClusterLease bool

	// LeaseDuration is how long a fence (and a replica's Lease) stays valid after it last changed, as the other
	// replicas see it (default 15s). A crashed replica's clusters move after LeaseDuration plus at most one Probe.
	LeaseDuration time.Duration
	// LeaseRenew is how often a replica renews its fences (default 5s). A replica stops working on its clusters
	// when it has not renewed for LeaseDuration minus LeaseRenew (its renew deadline), which leaves the others'
	// view LeaseRenew of margin. A LeaseRenew of half the LeaseDuration or more is reduced to a third of it.
	LeaseRenew time.Duration
	// FenceThrottle is the shortest interval between two fence writes of a replica (default 200ms): claims and
	// releases that come in a burst are written together.
	FenceThrottle time.Duration

	// PeerPrefix prefixes the names of the replicas' membership Leases, <PeerPrefix>-<R> (default "mcr-peer"). It
	// is not used when a registry is given with WithPeerRegistry.
	PeerPrefix string
	// PeerWeight is this replica's relative share of the clusters (default 1). It is not used when a registry is
	// given with WithPeerRegistry: the registry announces the weight.
	PeerWeight uint32

	// Probe is the longest interval between two rounds of the ownership loop (default 1s): fences of other
	// replicas are judged, claims retried, renewals made. Expiries of other replicas' fences are acted on when
	// they happen, not at the next Probe.
	Probe time.Duration
	// Rehash is how often the membership is read from the peer registry and the assignment recomputed if the
	// replicas or the clusters changed (default 200ms); changes within one Rehash are handled together.
	Rehash time.Duration
}

// withDefaults returns the configuration with the defaults applied to the zero fields.
func (c Config) withDefaults() Config {
	if c.FenceNS == "" {
		c.FenceNS = DefaultFenceNamespace
	}
	if c.FencePrefix == "" {
		c.FencePrefix = DefaultFencePrefix
	}
	if c.PeerPrefix == "" {
		c.PeerPrefix = DefaultPeerPrefix
	}
	if c.PeerWeight == 0 {
		c.PeerWeight = DefaultPeerWeight
	}
	if c.LeaseDuration <= 0 {
		c.LeaseDuration = DefaultLeaseDuration
	}
	if c.LeaseRenew <= 0 {
		c.LeaseRenew = min(DefaultLeaseRenew, c.LeaseDuration/3)
	}
	if c.LeaseRenew >= c.LeaseDuration/2 {
		c.LeaseRenew = c.LeaseDuration / 3
	}
	if c.FenceThrottle <= 0 {
		c.FenceThrottle = DefaultFenceThrottle
	}
	if c.Probe <= 0 {
		c.Probe = DefaultProbe
	}
	if c.Rehash <= 0 {
		c.Rehash = DefaultRehash
	}
	return c
}

// renewDeadline is how long after its last successful renewal (measured from when the renewal was sent) a fence is
// valid for this replica: LeaseDuration minus LeaseRenew.
func (c Config) renewDeadline() time.Duration {
	return c.LeaseDuration - c.LeaseRenew
}

// Option configures a sharded Coordinator.
type Option func(*Coordinator)

// WithSharder sets the sharder that assigns clusters to replicas. The default is sharder.NewBoundedHRW(0),
// rendezvous hashing with bounded loads; sharder.NewHRW() is plain rendezvous hashing. A sharder that implements
// sharder.Assigner assigns the whole fleet at once; others are asked cluster by cluster.
func WithSharder(s sharder.Sharder) Option {
	return func(c *Coordinator) {
		if s != nil {
			c.sharder = s
		}
	}
}

// WithPeerWeight sets this replica's weight: its share of the clusters relative to the others' (default 1).
func WithPeerWeight(weight uint32) Option {
	return func(c *Coordinator) {
		c.cfg.PeerWeight = weight
	}
}

// WithShardLease sets the namespace of the host cluster that holds the fences and the replicas' Leases, and the
// prefix of the fences' names (defaults "kube-system" and "mcr-shard"). Empty values keep the defaults.
func WithShardLease(ns, prefix string) Option {
	return func(c *Coordinator) {
		c.cfg.FenceNS = ns
		c.cfg.FencePrefix = prefix
	}
}

// WithPerClusterLease sets whether every cluster is fenced by a Lease of its own (see Config.PerClusterLease).
// All replicas must agree.
func WithPerClusterLease(enabled bool) Option {
	return func(c *Coordinator) {
		c.cfg.PerClusterLease = enabled
	}
}

// WithSynchronizationIntervals sets the Probe and Rehash intervals (see Config). Non-positive values keep the
// defaults.
func WithSynchronizationIntervals(probe, rehash time.Duration) Option {
	return func(c *Coordinator) {
		c.cfg.Probe = probe
		c.cfg.Rehash = rehash
	}
}

// WithLeaseTimings sets the lease duration, renew interval and fence throttle (see Config). They govern the
// fences and the membership: a replica whose fences have not changed for the lease duration drops out of the
// membership, whichever peer registry is used, and registries that implement peers.LeaseTimingsSetter (as the
// Lease registry does) are given the same timings. All replicas should use the same timings. Non-positive values
// keep the defaults.
func WithLeaseTimings(duration, renew, throttle time.Duration) Option {
	return func(c *Coordinator) {
		c.cfg.LeaseDuration = duration
		c.cfg.LeaseRenew = renew
		c.cfg.FenceThrottle = throttle
	}
}

// WithPeerRegistry sets the registry of the replicas. The default is peers.NewLeaseRegistry with the fence
// namespace, the peer prefix, the host name as this replica's ID and the peer weight. This replica's ID is the
// registry's Self().ID; it must be unique among the replicas.
func WithPeerRegistry(r peers.Registry) Option {
	return func(c *Coordinator) {
		c.registry = r
	}
}
