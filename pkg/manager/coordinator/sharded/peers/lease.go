// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package peers

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
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
)

const (
	// LabelPrefix labels the Leases of a LeaseRegistry; its value is the registry's name prefix.
	LabelPrefix = "multicluster.x-k8s.io/shard-peers"
	// AnnotationWeight is the annotation of a replica's Lease that holds its weight.
	AnnotationWeight = "multicluster.x-k8s.io/peer-weight"

	// DefaultLeaseDuration is how long a replica stays live without renewing, unless SetLeaseTimings says otherwise.
	DefaultLeaseDuration = 15 * time.Second
	// DefaultLeaseRenew is how often a replica renews its Lease, unless SetLeaseTimings says otherwise.
	DefaultLeaseRenew = 5 * time.Second

	// collectAfter is how many lease durations a dead replica's Lease is kept before it is deleted.
	collectAfter = 3
	// requestTimeout bounds each API request.
	requestTimeout = 10 * time.Second
)

// LeaseRegistry is a Registry of replicas that each keep a Lease in one namespace. See the package documentation.
type LeaseRegistry struct {
	cli    client.Client
	ns     string
	prefix string
	name   string // this replica's Lease
	log    logr.Logger

	mu       sync.Mutex
	self     sharder.PeerInfo
	duration time.Duration
	renew    time.Duration
	tracker  *leases.Tracker
	own      *coordinationv1.Lease // as last written
	renewNow chan struct{}
}

var (
	_ Registry           = &LeaseRegistry{}
	_ LeaseTimingsSetter = &LeaseRegistry{}
	_ Syncer             = &LeaseRegistry{}
	_ WeightSetter       = &LeaseRegistry{}
)

// NewLeaseRegistry returns a Registry that keeps this replica's Lease, <namePrefix>-<selfID> (made a valid name if
// it is not one), in namespace ns of the cluster cli talks to, and reads the others' from there. cli should read
// from the API server (client.New or client.NewWithWatch, not a manager's cached client); if it can watch, changes
// are seen at once, otherwise every renew interval. The registry needs get, list, watch, create, update and delete
// on Leases in ns.
func NewLeaseRegistry(cli client.Client, ns, namePrefix, selfID string, weight uint32, log logr.Logger) Registry {
	return &LeaseRegistry{
		cli:      cli,
		ns:       ns,
		prefix:   namePrefix,
		name:     leases.Name(namePrefix, selfID),
		log:      log.WithValues("peer", selfID),
		self:     sharder.PeerInfo{ID: selfID, Weight: max(weight, 1)},
		duration: DefaultLeaseDuration,
		renew:    DefaultLeaseRenew,
		renewNow: make(chan struct{}, 1),
	}
}

// SetLeaseTimings sets the lease duration and renew interval; call it before Run. Non-positive values keep the
// current ones; a renew interval of half the duration or more is reduced to a third of it.
func (r *LeaseRegistry) SetLeaseTimings(duration, renew time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if duration > 0 {
		r.duration = duration
	}
	if renew > 0 {
		r.renew = renew
	}
	if r.renew >= r.duration/2 {
		r.renew = r.duration / 3
	}
}

// SetWeight announces a new weight for this replica at once (zero counts as 1).
func (r *LeaseRegistry) SetWeight(weight uint32) {
	r.mu.Lock()
	r.self.Weight = max(weight, 1)
	r.mu.Unlock()
	select {
	case r.renewNow <- struct{}{}:
	default:
	}
}

// Self is this replica.
func (r *LeaseRegistry) Self() sharder.PeerInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.self
}

// HasSynced reports whether the registry has listed the replicas' Leases since Run started.
func (r *LeaseRegistry) HasSynced() bool {
	r.mu.Lock()
	t := r.tracker
	r.mu.Unlock()
	return t != nil && t.Synced()
}

// Snapshot returns this replica and every replica whose Lease this process has seen change within its duration,
// sorted by ID.
func (r *LeaseRegistry) Snapshot() []sharder.PeerInfo {
	r.mu.Lock()
	self, t, def := r.self, r.tracker, r.duration
	r.mu.Unlock()
	out := []sharder.PeerInfo{self}
	if t == nil {
		return out
	}
	now := time.Now()
	for _, o := range t.All() {
		id := o.Holder()
		if id == "" || id == self.ID || o.Expired(now, def) {
			continue
		}
		out = append(out, sharder.PeerInfo{ID: id, Weight: weightOf(o.Lease)})
	}
	slices.SortFunc(out, func(a, b sharder.PeerInfo) int { return strings.Compare(a.ID, b.ID) })
	return slices.CompactFunc(out, func(a, b sharder.PeerInfo) bool { return a.ID == b.ID })
}

// weightOf reads a replica's weight from its Lease; 1 if it is missing or malformed.
func weightOf(l *coordinationv1.Lease) uint32 {
	w, err := strconv.ParseUint(l.Annotations[AnnotationWeight], 10, 32)
	if err != nil || w == 0 {
		return 1
	}
	return uint32(w)
}

// Run renews this replica's Lease and follows the others' until ctx ends, then deletes this replica's Lease.
func (r *LeaseRegistry) Run(ctx context.Context) error {
	r.mu.Lock()
	renew := r.renew
	r.tracker = leases.NewTracker(r.cli, r.ns, map[string]string{LabelPrefix: leases.LabelValue(r.prefix)}, renew, r.log, nil)
	tracker := r.tracker
	r.mu.Unlock()

	var wg sync.WaitGroup
	wg.Go(func() { _ = tracker.Run(ctx) })
	defer wg.Wait()

	timer := time.NewTimer(0)
	defer timer.Stop()
	failures := 0
	for {
		select {
		case <-ctx.Done():
			r.withdraw(context.WithoutCancel(ctx))
			return nil
		case <-timer.C:
		case <-r.renewNow:
			timer.Stop()
		}
		next := renew
		if err := r.renewLease(ctx); err != nil {
			if ctx.Err() != nil {
				continue
			}
			failures++
			next = min(renew/2, time.Second)
			if failures == 1 {
				r.log.Error(err, "Renewing the replica's Lease failed; retrying", "retryAfter", next)
			} else {
				r.log.V(1).Info("Renewing the replica's Lease failed again", "error", err.Error())
			}
		} else {
			failures = 0
		}
		r.collect(ctx)
		timer.Reset(next)
	}
}

// renewLease creates or updates this replica's Lease.
func (r *LeaseRegistry) renewLease(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	r.mu.Lock()
	self, duration, own := r.self, r.duration, r.own
	r.mu.Unlock()

	now := metav1.NewMicroTime(time.Now())
	lease := &coordinationv1.Lease{}
	if own != nil {
		lease = own.DeepCopy()
	} else {
		lease.Name, lease.Namespace = r.name, r.ns
		lease.Spec.AcquireTime = &now
	}
	if lease.Labels == nil {
		lease.Labels = map[string]string{}
	}
	if lease.Annotations == nil {
		lease.Annotations = map[string]string{}
	}
	lease.Labels[LabelPrefix] = leases.LabelValue(r.prefix)
	lease.Annotations[AnnotationWeight] = strconv.FormatUint(uint64(self.Weight), 10)
	lease.Spec.HolderIdentity = ptr.To(self.ID)
	lease.Spec.LeaseDurationSeconds = ptr.To(int32((duration + time.Second - 1) / time.Second))
	lease.Spec.RenewTime = &now

	var err error
	if own == nil {
		err = r.cli.Create(ctx, lease)
		if apierrors.IsAlreadyExists(err) {
			return r.adopt(ctx)
		}
	} else {
		err = r.cli.Update(ctx, lease)
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			// Someone else changed or deleted it (a replica that thought this one dead): start again from the
			// server's copy.
			r.mu.Lock()
			r.own = nil
			r.mu.Unlock()
			err = fmt.Errorf("the Lease %s/%s changed behind this replica's back: %w", r.ns, r.name, err)
		}
	}
	if err != nil {
		return err
	}
	metrics.ShardLeaseWrites.WithLabelValues(self.ID, "peer").Inc()
	r.mu.Lock()
	r.own = lease
	r.mu.Unlock()
	r.tracker.Observe(lease)
	return nil
}

// adopt takes over an existing Lease of this replica's name (left by an earlier run): the next renewal updates it.
func (r *LeaseRegistry) adopt(ctx context.Context) error {
	existing := &coordinationv1.Lease{}
	if err := r.cli.Get(ctx, client.ObjectKey{Namespace: r.ns, Name: r.name}, existing); err != nil {
		return fmt.Errorf("reading the Lease %s/%s: %w", r.ns, r.name, err)
	}
	r.mu.Lock()
	r.own = existing
	r.mu.Unlock()
	return r.renewLease(ctx)
}

// withdraw deletes this replica's Lease, so that the others drop it from the membership at once.
func (r *LeaseRegistry) withdraw(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	r.mu.Lock()
	own := r.own
	r.own = nil
	r.mu.Unlock()
	if own == nil {
		return
	}
	err := r.cli.Delete(ctx, own, client.Preconditions{UID: &own.UID, ResourceVersion: &own.ResourceVersion})
	if err != nil && !apierrors.IsNotFound(err) {
		r.log.Error(err, "Deleting the replica's Lease failed; the others drop it when it expires")
		return
	}
	metrics.ShardLeaseWrites.WithLabelValues(r.Self().ID, "peer").Inc()
}

// collect deletes the Leases of replicas dead for collectAfter lease durations, if they are still unchanged.
func (r *LeaseRegistry) collect(ctx context.Context) {
	r.mu.Lock()
	self, def := r.self.ID, r.duration
	r.mu.Unlock()
	now := time.Now()
	for _, o := range r.tracker.All() {
		if o.Holder() == self || now.Before(o.Since.Add(collectAfter*o.Duration(def))) {
			continue
		}
		if r.tracker.DeleteUnchanged(ctx, o.Lease, requestTimeout) {
			r.log.V(1).Info("Deleted the Lease of a dead replica", "lease", o.Lease.Name, "replica", o.Holder())
		}
	}
}
