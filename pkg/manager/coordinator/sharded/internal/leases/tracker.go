// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package leases

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Observed is a Lease as this process has seen it.
type Observed struct {
	// Lease is the latest copy seen. It must not be modified.
	Lease *coordinationv1.Lease
	// Since is when this process first saw the Lease at its current resourceVersion, on the monotonic clock.
	Since time.Time
}

// Duration is the Lease's lease duration, or def if the Lease does not set one.
func (o Observed) Duration(def time.Duration) time.Duration {
	if o.Lease.Spec.LeaseDurationSeconds != nil && *o.Lease.Spec.LeaseDurationSeconds > 0 {
		return time.Duration(*o.Lease.Spec.LeaseDurationSeconds) * time.Second
	}
	return def
}

// ExpiresAt is when the Lease expires unless it changes before: Since plus its duration.
func (o Observed) ExpiresAt(def time.Duration) time.Time {
	return o.Since.Add(o.Duration(def))
}

// Expired reports whether this process has seen the Lease unchanged for its whole duration.
func (o Observed) Expired(now time.Time, def time.Duration) bool {
	return !now.Before(o.ExpiresAt(def))
}

// Holder is the Lease's holder identity, or "".
func (o Observed) Holder() string {
	if o.Lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *o.Lease.Spec.HolderIdentity
}

// Tracker keeps the Leases of one namespace that carry a set of labels, with the time each was first seen at its
// current resourceVersion. It watches them if its client can (client.WithWatch) and lists them every poll interval
// otherwise. Refresh reads them straight from the API server (a quorum read, if the client is not a cache).
type Tracker struct {
	cli      client.Client
	ns       string
	labels   map[string]string
	poll     time.Duration
	log      logr.Logger
	onChange func()
	now      func() time.Time

	mu     sync.Mutex
	leases map[string]Observed
	synced bool
	gen    uint64 // counts the changes of leases
}

// NewTracker returns a tracker of the Leases in ns with the labels. onChange, if not nil, is called (without locks
// held) after every change it sees. poll is the list interval of clients that cannot watch.
func NewTracker(cli client.Client, ns string, labels map[string]string, poll time.Duration, log logr.Logger, onChange func()) *Tracker {
	if onChange == nil {
		onChange = func() {}
	}
	return &Tracker{
		cli:      cli,
		ns:       ns,
		labels:   labels,
		poll:     poll,
		log:      log,
		onChange: onChange,
		now:      time.Now,
		leases:   map[string]Observed{},
	}
}

// Synced reports whether the tracker has listed the Leases at least once.
func (t *Tracker) Synced() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.synced
}

// Get returns the Lease of that name as last seen.
func (t *Tracker) Get(name string) (Observed, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	o, ok := t.leases[name]
	return o, ok
}

// All returns every Lease as last seen, by name.
func (t *Tracker) All() map[string]Observed {
	leases, _ := t.AllWithGeneration()
	return leases
}

// AllWithGeneration returns every Lease as last seen, and a number that changes whenever they do, so that callers
// can keep what they derive from them until the next change.
func (t *Tracker) AllWithGeneration() (map[string]Observed, uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.leases), t.gen
}

// Observe records a Lease this process read or wrote itself.
func (t *Tracker) Observe(l *coordinationv1.Lease) {
	if t.observe(l) {
		t.onChange()
	}
}

// Forget drops a Lease this process knows to be deleted.
func (t *Tracker) Forget(name string) {
	t.mu.Lock()
	_, ok := t.leases[name]
	delete(t.leases, name)
	if ok {
		t.gen++
	}
	t.mu.Unlock()
	if ok {
		t.onChange()
	}
}

func (t *Tracker) observe(l *coordinationv1.Lease) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	old, ok := t.leases[l.Name]
	if ok && old.Lease.ResourceVersion == l.ResourceVersion {
		return false
	}
	t.leases[l.Name] = Observed{Lease: l.DeepCopy(), Since: t.now()}
	t.gen++
	return true
}

// replace makes the tracker hold exactly the listed Leases; Leases unchanged keep the time they were first seen.
func (t *Tracker) replace(items []coordinationv1.Lease) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	changed := !t.synced || len(items) != len(t.leases)
	next := make(map[string]Observed, len(items))
	for i := range items {
		l := &items[i]
		if old, ok := t.leases[l.Name]; ok && old.Lease.ResourceVersion == l.ResourceVersion {
			next[l.Name] = old
			continue
		}
		changed = true
		next[l.Name] = Observed{Lease: l.DeepCopy(), Since: now}
	}
	t.leases = next
	t.synced = true
	if changed {
		t.gen++
	}
	return changed
}

// Refresh lists the Leases from the API server, records them and returns them. With a client that reads from the
// API server (not a cache) this is a quorum read: it sees every write that completed before it started.
func (t *Tracker) Refresh(ctx context.Context) (map[string]Observed, string, error) {
	list := &coordinationv1.LeaseList{}
	if err := t.cli.List(ctx, list, client.InNamespace(t.ns), client.MatchingLabels(t.labels)); err != nil {
		return nil, "", fmt.Errorf("listing Leases in namespace %q: %w", t.ns, err)
	}
	if t.replace(list.Items) {
		t.onChange()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.leases), list.ResourceVersion, nil
}

// Run keeps the tracker up to date until ctx ends: a watch that resumes after failures if the client can watch,
// a list every poll interval otherwise.
func (t *Tracker) Run(ctx context.Context) error {
	wc, canWatch := t.cli.(client.WithWatch)
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		_, rv, err := t.Refresh(ctx)
		if err == nil && canWatch {
			err = t.watch(ctx, wc, rv)
			if err == nil {
				backoff = 100 * time.Millisecond
			}
		}
		delay := t.poll
		if err != nil && ctx.Err() == nil {
			t.log.V(1).Info("Observing Leases failed, retrying", "namespace", t.ns, "error", err.Error(), "retryAfter", backoff)
			delay = backoff
			backoff = min(2*backoff, max(t.poll, time.Second))
		} else if canWatch {
			continue // the watch ended normally (timeout): list and watch again at once
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
		case <-timer.C:
		}
	}
	return nil
}

// errWatchExpired means the watch must restart from a fresh list.
var errWatchExpired = errors.New("watch expired")

// watch follows the Leases from resourceVersion rv until the watch ends (nil), fails or ctx ends.
func (t *Tracker) watch(ctx context.Context, wc client.WithWatch, rv string) error {
	timeout := int64(240 + rand.IntN(120)) // spread the restarts of many replicas' watches
	w, err := wc.Watch(ctx, &coordinationv1.LeaseList{}, client.InNamespace(t.ns), client.MatchingLabels(t.labels),
		&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true, TimeoutSeconds: &timeout}})
	if err != nil {
		return fmt.Errorf("watching Leases in namespace %q: %w", t.ns, err)
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil
			}
			switch ev.Type {
			case watch.Added, watch.Modified:
				if l, ok := ev.Object.(*coordinationv1.Lease); ok {
					t.Observe(l)
				}
			case watch.Deleted:
				if l, ok := ev.Object.(*coordinationv1.Lease); ok {
					t.Forget(l.Name)
				}
			case watch.Bookmark:
			case watch.Error:
				if status, ok := ev.Object.(*metav1.Status); ok && status.Code == 410 {
					return errWatchExpired
				}
				return fmt.Errorf("watching Leases in namespace %q: %w", t.ns, apierrors.FromObject(ev.Object))
			default:
			}
		}
	}
}
