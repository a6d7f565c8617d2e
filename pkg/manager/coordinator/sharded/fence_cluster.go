// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/multicluster-runtime/internal/metrics"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/internal/leases"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// fenceWorkers bounds the concurrent Lease writes of per-cluster fences.
const fenceWorkers = 8

// clusterFence fences every cluster with a Lease of its own, <FencePrefix>-<cluster>, whose holderIdentity is the
// replica that holds it. A replica acquires a cluster by creating its Lease, or by updating it, with the
// resourceVersion it last saw as a precondition, if it is released (no holder), its own, or unchanged for its lease
// duration in this replica's view; the API server lets only one such write through. It renews every Lease it holds
// every LeaseRenew, works on a cluster only while that Lease's last renewal is younger than the renew deadline, and
// releases a cluster by clearing the holder once it has drained it.
//
// Each replica also keeps a heartbeat, a replica fence that lists no cluster, <FencePrefix>.replica-<ID>: the
// membership counts a replica only while its heartbeat is live, whichever peer registry is used, as with replica
// fences.
type clusterFence struct {
	cli     client.Client
	cfg     Config
	self    string
	log     logr.Logger
	tracker *leases.Tracker
	beat    *replicaFence

	mu          sync.Mutex
	held        map[multicluster.ClusterName]*heldLease
	lastAttempt time.Time
	pendingAt   time.Time
}

// heldLease is the Lease of a cluster this replica holds.
type heldLease struct {
	lease     *coordinationv1.Lease
	lastRenew time.Time // when its last successful write was sent
}

var _ fence = &clusterFence{}

func newClusterFence(cli client.Client, cfg Config, self string, log logr.Logger, kick func()) *clusterFence {
	labels := map[string]string{LabelFence: leases.LabelValue(cfg.FencePrefix), LabelFenceKind: fenceKindCluster}
	return &clusterFence{
		cli:     cli,
		cfg:     cfg,
		self:    self,
		log:     log,
		tracker: leases.NewTracker(cli, cfg.FenceNS, labels, cfg.Probe, log, kick),
		beat:    newReplicaFence(cli, cfg, self, leases.Name(cfg.FencePrefix+".replica", self), log.WithName("heartbeat"), kick),
		held:    map[multicluster.ClusterName]*heldLease{},
	}
}

func (f *clusterFence) leaseName(name multicluster.ClusterName) string {
	return leases.Name(f.cfg.FencePrefix, name.String())
}

func (f *clusterFence) run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { _ = f.beat.run(ctx) })
	err := f.tracker.Run(ctx)
	wg.Wait()
	return err
}

func (f *clusterFence) synced() bool { return f.tracker.Synced() && f.beat.synced() }

func (f *clusterFence) validUntil(name multicluster.ClusterName) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	if h := f.held[name]; h != nil {
		return h.lastRenew.Add(f.cfg.renewDeadline())
	}
	return time.Time{}
}

func (f *clusterFence) mayClaim(name multicluster.ClusterName, now time.Time) bool {
	o, ok := f.tracker.Get(f.leaseName(name))
	if !ok {
		return true
	}
	holder := o.Holder()
	return holder == "" || holder == f.self || o.Expired(now, f.cfg.LeaseDuration)
}

func (f *clusterFence) liveness(now time.Time) (map[string]bool, bool) { return f.beat.liveness(now) }

func (f *clusterFence) nextWake(now time.Time) time.Time {
	wake := f.beat.nextWake(now)
	f.mu.Lock()
	wake = earliest(wake, f.pendingAt)
	for _, h := range f.held {
		wake = earliest(wake, h.lastRenew.Add(f.cfg.LeaseRenew))
	}
	f.mu.Unlock()
	for _, o := range f.tracker.All() {
		if h := o.Holder(); h != "" && h != f.self && !o.Expired(now, f.cfg.LeaseDuration) {
			wake = earliest(wake, o.ExpiresAt(f.cfg.LeaseDuration))
		}
	}
	return wake
}

func (f *clusterFence) sync(ctx context.Context, r round) roundResult {
	f.beat.sync(ctx, round{}) // renews the heartbeat when due
	now := time.Now()
	var res roundResult
	var mu sync.Mutex // guards res

	f.mu.Lock()
	throttled := !f.lastAttempt.IsZero() && now.Sub(f.lastAttempt) < f.cfg.FenceThrottle
	f.pendingAt = time.Time{}
	if throttled && (len(r.claims) > 0 || len(r.release) > 0) {
		f.pendingAt = f.lastAttempt.Add(f.cfg.FenceThrottle)
	}
	if !throttled && (len(r.claims) > 0 || len(r.release) > 0) {
		f.lastAttempt = now
	}
	var renew []multicluster.ClusterName
	releasing := toSet(r.release)
	for name, h := range f.held {
		if !releasing[name] && now.Sub(h.lastRenew) >= f.cfg.LeaseRenew {
			renew = append(renew, name)
		}
	}
	f.mu.Unlock()

	parallel(fenceWorkers, renew, func(name multicluster.ClusterName) { f.renew(ctx, name) })
	if throttled {
		return res
	}
	parallel(fenceWorkers, r.claims, func(name multicluster.ClusterName) {
		if f.acquire(ctx, name) {
			mu.Lock()
			res.acquired = append(res.acquired, name)
			mu.Unlock()
		}
	})
	parallel(fenceWorkers, r.release, func(name multicluster.ClusterName) {
		if f.release(ctx, name) {
			mu.Lock()
			res.released = append(res.released, name)
			mu.Unlock()
		}
	})
	return res
}

// build returns the cluster's Lease as this replica writes it, from base (nil to create it).
func (f *clusterFence) build(name multicluster.ClusterName, base *coordinationv1.Lease, holder string, now metav1.MicroTime) *coordinationv1.Lease {
	lease := &coordinationv1.Lease{}
	if base != nil {
		lease = base.DeepCopy()
	} else {
		lease.Name, lease.Namespace = f.leaseName(name), f.cfg.FenceNS
	}
	markFence(lease, f.cfg.FencePrefix, fenceKindCluster)
	lease.Annotations[AnnotationCluster] = name.String()
	previous := ""
	if lease.Spec.HolderIdentity != nil {
		previous = *lease.Spec.HolderIdentity
	}
	if holder != "" && previous != holder {
		lease.Spec.AcquireTime = &now
		lease.Spec.LeaseTransitions = ptr.To(ptr.Deref(lease.Spec.LeaseTransitions, 0) + 1)
	}
	lease.Spec.HolderIdentity = ptr.To(holder)
	lease.Spec.LeaseDurationSeconds = ptr.To(int32((f.cfg.LeaseDuration + time.Second - 1) / time.Second))
	lease.Spec.RenewTime = &now
	return lease
}

// acquire fences the cluster for this replica if its Lease is free, this replica's, or expired in this replica's
// view; the write's precondition (create, or update at the resourceVersion seen) makes it exclusive.
func (f *clusterFence) acquire(ctx context.Context, name multicluster.ClusterName) bool {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	sent := time.Now()
	o, seen := f.tracker.Get(f.leaseName(name))
	var err error
	var lease *coordinationv1.Lease
	if !seen {
		lease = f.build(name, nil, f.self, metav1.NewMicroTime(sent))
		err = f.cli.Create(ctx, lease)
	} else {
		if h := o.Holder(); h != "" && h != f.self && !o.Expired(sent, f.cfg.LeaseDuration) {
			metrics.ShardFenceAcquireFailures.WithLabelValues(f.self, "held").Inc()
			return false
		}
		lease = f.build(name, o.Lease, f.self, metav1.NewMicroTime(sent))
		err = f.cli.Update(ctx, lease)
	}
	switch {
	case err == nil:
	case apierrors.IsAlreadyExists(err), apierrors.IsConflict(err), apierrors.IsNotFound(err):
		metrics.ShardFenceAcquireFailures.WithLabelValues(f.self, "conflict").Inc()
		f.refresh(ctx, name)
		return false
	default:
		metrics.ShardFenceAcquireFailures.WithLabelValues(f.self, "error").Inc()
		f.log.V(1).Info("Acquiring a cluster's fence failed", "cluster", name, "error", err.Error())
		return false
	}
	metrics.ShardLeaseWrites.WithLabelValues(f.self, "fence").Inc()
	f.tracker.Observe(lease)
	f.mu.Lock()
	f.held[name] = &heldLease{lease: lease, lastRenew: sent}
	f.mu.Unlock()
	return true
}

// refresh reads the cluster's Lease after a write lost a race, so that the next attempt starts from it.
func (f *clusterFence) refresh(ctx context.Context, name multicluster.ClusterName) {
	l := &coordinationv1.Lease{}
	err := f.cli.Get(ctx, client.ObjectKey{Namespace: f.cfg.FenceNS, Name: f.leaseName(name)}, l)
	switch {
	case err == nil:
		f.tracker.Observe(l)
	case apierrors.IsNotFound(err):
		f.tracker.Forget(f.leaseName(name))
	}
}

// renew renews a held cluster's Lease. If the Lease changed behind this replica's back, the cluster is no longer
// held: its work stops at once.
func (f *clusterFence) renew(ctx context.Context, name multicluster.ClusterName) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	h := f.heldLease(name)
	if h == nil {
		return
	}
	sent := time.Now()
	lease := f.build(name, h.lease, f.self, metav1.NewMicroTime(sent))
	err := f.cli.Update(ctx, lease)
	switch {
	case err == nil:
		metrics.ShardLeaseWrites.WithLabelValues(f.self, "fence").Inc()
		f.tracker.Observe(lease)
		f.mu.Lock()
		if f.held[name] == h {
			f.held[name] = &heldLease{lease: lease, lastRenew: sent}
		}
		f.mu.Unlock()
	case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
		f.log.Info("A cluster's fence changed behind this replica's back; its work stops", "cluster", name, "error", err.Error())
		f.mu.Lock()
		if f.held[name] == h {
			delete(f.held, name)
		}
		f.mu.Unlock()
		f.refresh(ctx, name)
	case ctx.Err() != nil:
		f.log.V(1).Info("Renewing a fence was interrupted", "cluster", name, "error", err.Error())
	default:
		f.log.Error(fmt.Errorf("renewing the fence of cluster %q: %w", name, err), "Renewing a fence failed")
	}
}

// release clears the holder of a drained cluster's Lease. It reports whether the cluster is no longer fenced by
// this replica (also when the Lease had already changed hands).
func (f *clusterFence) release(ctx context.Context, name multicluster.ClusterName) bool {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	h := f.heldLease(name)
	if h == nil {
		return true
	}
	lease := f.build(name, h.lease, "", metav1.NewMicroTime(time.Now()))
	err := f.cli.Update(ctx, lease)
	switch {
	case err == nil:
		metrics.ShardLeaseWrites.WithLabelValues(f.self, "fence").Inc()
		f.tracker.Observe(lease)
	case apierrors.IsConflict(err) || apierrors.IsNotFound(err):
		f.refresh(ctx, name)
	default:
		f.log.V(1).Info("Releasing a cluster's fence failed; retrying", "cluster", name, "error", err.Error())
		return false
	}
	f.mu.Lock()
	if f.held[name] == h {
		delete(f.held, name)
	}
	f.mu.Unlock()
	return true
}

// heldLease returns the Lease of the cluster this replica holds, or nil.
func (f *clusterFence) heldLease(name multicluster.ClusterName) *heldLease {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.held[name]
}

func (f *clusterFence) shutdown(ctx context.Context) { f.beat.shutdown(ctx) }
