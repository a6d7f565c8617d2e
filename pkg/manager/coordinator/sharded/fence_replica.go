// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded

import (
	"context"
	"fmt"
	"maps"
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
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/sharder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// collectAfter is how many lease durations a dead replica's fence is kept before it is deleted.
const collectAfter = 3

// requestTimeout bounds each API request of the fences.
const requestTimeout = 10 * time.Second

// replicaFence fences clusters with one Lease per replica, <FencePrefix>-<ID>, that lists the clusters the replica
// holds and those it claims.
//
// A replica claims a cluster by writing it into its own fence, then reads every replica's fence from the API
// server (a quorum read, after its write completed); it starts working on the cluster only if no other live fence
// lists it. Two replicas that claim a cluster at once both see the other's claim: the one rendezvous hashing
// prefers waits, the other retracts without ever working on it. A fence is live while this replica has seen it
// change within its lease duration. A replica works only while its own last successful write is younger than the
// renew deadline, shorter than the lease duration, so it stops before any other replica can think its fence dead.
type replicaFence struct {
	cli     client.Client
	cfg     Config
	self    string
	name    string
	log     logr.Logger
	tracker *leases.Tracker
	kick    func()

	mu            sync.Mutex
	own           *coordinationv1.Lease // as last written or read
	lastRenew     time.Time             // when the last successful write was sent; zero if the fence is not valid
	lastAttempt   time.Time             // when the last write was attempted
	pendingAt     time.Time             // when a throttled write may be made
	writtenHeld   map[multicluster.ClusterName]bool
	writtenClaims map[multicluster.ClusterName]bool
	blocked       map[multicluster.ClusterName]bool // claims already counted as blocked
	lastCollect   time.Time
	failures      int // consecutive failed writes

	// viewsCache holds the other replicas' fences decoded, as of the tracker's generation viewsGen.
	viewsCache []replicaView
	viewsGen   uint64
	viewsOK    bool
}

var _ fence = &replicaFence{}

// newReplicaFence returns the fence of this replica, the Lease name (<FencePrefix>-<ID> for replica fences).
func newReplicaFence(cli client.Client, cfg Config, self, name string, log logr.Logger, kick func()) *replicaFence {
	f := &replicaFence{
		cli:           cli,
		cfg:           cfg,
		self:          self,
		name:          name,
		log:           log,
		kick:          kick,
		writtenHeld:   map[multicluster.ClusterName]bool{},
		writtenClaims: map[multicluster.ClusterName]bool{},
		blocked:       map[multicluster.ClusterName]bool{},
	}
	labels := map[string]string{LabelFence: leases.LabelValue(cfg.FencePrefix), LabelFenceKind: fenceKindReplica}
	f.tracker = leases.NewTracker(cli, cfg.FenceNS, labels, cfg.Probe, log, kick)
	return f
}

func (f *replicaFence) run(ctx context.Context) error { return f.tracker.Run(ctx) }

func (f *replicaFence) synced() bool { return f.tracker.Synced() }

func (f *replicaFence) validUntil(name multicluster.ClusterName) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lastRenew.IsZero() || (!f.writtenHeld[name] && !f.writtenClaims[name]) {
		return time.Time{}
	}
	return f.lastRenew.Add(f.cfg.renewDeadline())
}

// replicaView is another replica's fence as seen.
type replicaView struct {
	id      string
	since   time.Time
	expires time.Time
	held    map[string]bool
	claims  map[string]bool
	lease   *coordinationv1.Lease
}

// live reports whether the fence has been seen changing within its lease duration.
func (v replicaView) live(now time.Time) bool { return now.Before(v.expires) }

// seenViews returns the other replicas' fences as the tracker last saw them, decoded once per change.
func (f *replicaFence) seenViews() []replicaView {
	obs, gen := f.tracker.AllWithGeneration()
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.viewsOK || gen != f.viewsGen {
		f.viewsCache, f.viewsGen, f.viewsOK = f.views(obs), gen, true
	}
	return f.viewsCache
}

// views returns the other replicas' fences among obs.
func (f *replicaFence) views(obs map[string]leases.Observed) []replicaView {
	out := make([]replicaView, 0, len(obs))
	for name, o := range obs {
		id := o.Holder()
		if name == f.name || id == f.self || id == "" {
			continue
		}
		v := replicaView{
			id:      id,
			since:   o.Since,
			expires: o.ExpiresAt(f.cfg.LeaseDuration),
			held:    map[string]bool{},
			claims:  map[string]bool{},
			lease:   o.Lease,
		}
		for _, c := range leases.DecodeList(o.Lease.Annotations[AnnotationClusters]) {
			v.held[c] = true
		}
		for _, c := range leases.DecodeList(o.Lease.Annotations[AnnotationClaims]) {
			v.claims[c] = true
		}
		out = append(out, v)
	}
	return out
}

// prefers reports whether the replica other is preferred over this one for the cluster when both claim it. Weights
// are left out, so that replicas that see different weights still agree.
func (f *replicaFence) prefers(name multicluster.ClusterName, other string) bool {
	return sharder.Prefers(name.String(), sharder.PeerInfo{ID: other}, sharder.PeerInfo{ID: f.self})
}

func (f *replicaFence) mayClaim(name multicluster.ClusterName, now time.Time) bool {
	for _, v := range f.seenViews() {
		if v.live(now) && v.claims[name.String()] && f.prefers(name, v.id) {
			return false
		}
	}
	return true
}

func (f *replicaFence) liveness(now time.Time) (map[string]bool, bool) {
	out := map[string]bool{}
	for _, v := range f.seenViews() {
		out[v.id] = out[v.id] || v.live(now)
	}
	return out, true
}

func (f *replicaFence) nextWake(now time.Time) time.Time {
	f.mu.Lock()
	renewAt := now
	if !f.lastRenew.IsZero() {
		renewAt = f.lastRenew.Add(f.cfg.LeaseRenew)
	}
	pendingAt := f.pendingAt
	f.mu.Unlock()
	wake := earliest(renewAt, pendingAt)
	for _, v := range f.seenViews() {
		if v.live(now) {
			wake = earliest(wake, v.expires)
		}
	}
	return wake
}

func (f *replicaFence) sync(ctx context.Context, r round) roundResult {
	now := time.Now()
	held, claims := toSet(r.held), toSet(r.claims)

	f.mu.Lock()
	// Any difference is written: claims and releases so that the others see them, clusters acquired so that the
	// fence shows (to kubectl) what this replica works on.
	change := !maps.Equal(held, f.writtenHeld) || !maps.Equal(claims, f.writtenClaims)
	for c := range f.blocked {
		if !claims[c] {
			delete(f.blocked, c)
		}
	}
	renewDue := f.lastRenew.IsZero() || now.Sub(f.lastRenew) >= f.cfg.LeaseRenew
	gap := f.cfg.FenceThrottle
	if f.failures > 0 {
		gap = retryGap(f.cfg)
	}
	throttled := !f.lastAttempt.IsZero() && now.Sub(f.lastAttempt) < gap
	f.pendingAt = time.Time{}
	if (renewDue || change) && throttled {
		f.pendingAt = f.lastAttempt.Add(gap)
	}
	f.mu.Unlock()

	if (renewDue || change) && !throttled {
		f.write(ctx, r.held, r.claims)
	}

	var res roundResult
	f.mu.Lock()
	for _, c := range r.release {
		if !f.writtenHeld[c] && !f.writtenClaims[c] {
			res.released = append(res.released, c)
		}
	}
	var pending []multicluster.ClusterName
	for _, c := range r.claims {
		if f.writtenClaims[c] {
			pending = append(pending, c)
		}
	}
	valid := !f.lastRenew.IsZero() && validAt(time.Now(), f.lastRenew.Add(f.cfg.renewDeadline()))
	f.mu.Unlock()

	if len(pending) > 0 && valid {
		f.decide(ctx, pending, &res)
	}
	f.collect(ctx, now)
	return res
}

// decide reads every fence from the API server and decides each claim written before the read: acquired if no
// other live fence lists the cluster, retracted if another live fence claims it and is preferred, kept otherwise.
func (f *replicaFence) decide(ctx context.Context, pending []multicluster.ClusterName, res *roundResult) {
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	obs, _, err := f.tracker.Refresh(rctx)
	if err != nil {
		f.log.V(1).Info("Reading the fences failed; claims wait for the next round", "error", err.Error())
		metrics.ShardFenceAcquireFailures.WithLabelValues(f.self, "error").Inc()
		return
	}
	now := time.Now()

	f.mu.Lock()
	defer f.mu.Unlock()
	if mine, ok := obs[f.name]; !ok || f.own == nil || mine.Lease.ResourceVersion != f.own.ResourceVersion {
		// The fence is not as this replica last wrote it: someone else changed or deleted it.
		f.log.Info("This replica's fence changed behind its back; it stops working until it has written it again", "lease", f.name)
		f.lastRenew = time.Time{}
		f.own = nil
		return
	}
	if !validAt(now, f.lastRenew.Add(f.cfg.renewDeadline())) {
		return
	}
	views := f.views(obs)
	for _, c := range pending {
		blocked, yield := "", false
		for _, v := range views {
			if !v.live(now) {
				continue
			}
			if v.held[c.String()] || v.claims[c.String()] {
				blocked = v.id
			}
			if v.claims[c.String()] && f.prefers(c, v.id) {
				yield = true
			}
		}
		switch {
		case blocked == "":
			delete(f.blocked, c)
			res.acquired = append(res.acquired, c)
		case yield:
			delete(f.blocked, c)
			metrics.ShardFenceAcquireFailures.WithLabelValues(f.self, "conflict").Inc()
			f.log.V(1).Info("Retracting a claim: a preferred replica claims the cluster too", "cluster", c, "replica", blocked)
			res.retracted = append(res.retracted, c)
		case !f.blocked[c]:
			f.blocked[c] = true
			metrics.ShardFenceAcquireFailures.WithLabelValues(f.self, "held").Inc()
			f.log.V(1).Info("Claim waits: another replica's fence lists the cluster", "cluster", c, "replica", blocked)
		}
	}
}

// write writes this replica's fence with the clusters held and claimed, renewing it.
func (f *replicaFence) write(ctx context.Context, held, claims []multicluster.ClusterName) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	f.mu.Lock()
	own := f.own
	f.lastAttempt = time.Now()
	f.mu.Unlock()

	sent := time.Now()
	now := metav1.NewMicroTime(sent)
	lease := &coordinationv1.Lease{}
	if own != nil {
		lease = own.DeepCopy()
	} else {
		lease.Name, lease.Namespace = f.name, f.cfg.FenceNS
		lease.Spec.AcquireTime = &now
	}
	markFence(lease, f.cfg.FencePrefix, fenceKindReplica)
	lease.Annotations[AnnotationClusters] = leases.EncodeList(toStrings(held))
	lease.Annotations[AnnotationClaims] = leases.EncodeList(toStrings(claims))
	lease.Spec.HolderIdentity = ptr.To(f.self)
	lease.Spec.LeaseDurationSeconds = ptr.To(int32((f.cfg.LeaseDuration + time.Second - 1) / time.Second))
	lease.Spec.RenewTime = &now

	var err error
	if own == nil {
		err = f.cli.Create(ctx, lease)
		if apierrors.IsAlreadyExists(err) {
			// Left by an earlier run of this replica: adopt it; the next write replaces its lists.
			existing := &coordinationv1.Lease{}
			if gerr := f.cli.Get(ctx, client.ObjectKeyFromObject(lease), existing); gerr == nil {
				f.mu.Lock()
				f.own = existing
				f.lastAttempt = time.Time{}
				f.mu.Unlock()
				f.kick()
				return
			}
		}
	} else {
		err = f.cli.Update(ctx, lease)
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			f.mu.Lock()
			f.own = nil
			f.lastRenew = time.Time{}
			f.mu.Unlock()
			f.log.Info("This replica's fence changed behind its back; it stops working until it has written it again", "lease", f.name, "error", err.Error())
			f.kick()
			return
		}
	}
	if err != nil {
		f.mu.Lock()
		f.failures++
		first := f.failures == 1
		f.mu.Unlock()
		err = fmt.Errorf("writing the fence %s/%s: %w", f.cfg.FenceNS, f.name, err)
		switch {
		case ctx.Err() != nil:
		case first:
			f.log.Error(err, "Renewing the fence failed; retrying", "retryAfter", retryGap(f.cfg))
		default:
			f.log.V(1).Info("Renewing the fence failed again", "error", err.Error())
		}
		return
	}
	metrics.ShardLeaseWrites.WithLabelValues(f.self, "fence").Inc()
	f.mu.Lock()
	if f.failures > 0 {
		f.log.Info("Renewing the fence works again", "failedAttempts", f.failures)
	}
	f.failures = 0
	f.own = lease
	f.lastRenew = sent
	f.writtenHeld = toSet(held)
	f.writtenClaims = toSet(claims)
	f.mu.Unlock()
	f.tracker.Observe(lease)
}

// collect deletes, at most once per renew interval, the fences of replicas dead for collectAfter lease durations.
func (f *replicaFence) collect(ctx context.Context, now time.Time) {
	f.mu.Lock()
	due := now.Sub(f.lastCollect) >= f.cfg.LeaseRenew
	if due {
		f.lastCollect = now
	}
	f.mu.Unlock()
	if !due {
		return
	}
	for _, v := range f.seenViews() {
		if v.live(now) || now.Before(v.since.Add(collectAfter*(v.expires.Sub(v.since)))) {
			continue
		}
		if f.tracker.DeleteUnchanged(ctx, v.lease, requestTimeout) {
			metrics.ShardLeaseWrites.WithLabelValues(f.self, "fence").Inc()
			f.log.V(1).Info("Deleted the fence of a dead replica", "lease", v.lease.Name, "replica", v.id)
		}
	}
}

func (f *replicaFence) shutdown(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	f.mu.Lock()
	own := f.own
	f.own, f.lastRenew = nil, time.Time{}
	f.writtenHeld, f.writtenClaims = map[multicluster.ClusterName]bool{}, map[multicluster.ClusterName]bool{}
	f.mu.Unlock()
	if own == nil {
		return
	}
	err := f.cli.Delete(ctx, own, client.Preconditions{UID: &own.UID, ResourceVersion: &own.ResourceVersion})
	if err != nil && !apierrors.IsNotFound(err) {
		f.log.Error(err, "Deleting this replica's fence failed; the others ignore it once it expires", "lease", f.name)
		return
	}
	metrics.ShardLeaseWrites.WithLabelValues(f.self, "fence").Inc()
}
