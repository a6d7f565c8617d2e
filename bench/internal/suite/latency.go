// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// writtenAnnotation carries the time a tick object was written, in Unix nanoseconds.
const writtenAnnotation = "bench.multicluster-runtime.sigs.k8s.io/written"

// latencies counts reconciles and records the write → reconcile latency of tick objects: every write (tick) puts
// its start time into the object's annotation; a reconcile that reads the object sees the latest write, and every
// write of that cluster up to it counts as reconciled then (writes made while the request waited in the queue are
// deduplicated into one reconcile, which reconciles all of them).
type latencies struct {
	mu          sync.Mutex
	lat         []time.Duration
	pending     map[multicluster.ClusterName][]int64 // cluster → start times of its writes not reconciled yet, in order
	count       int
	perCluster  map[multicluster.ClusterName]int
	first, last time.Time
}

func newLatencies() *latencies {
	return &latencies{pending: map[multicluster.ClusterName][]int64{}, perCluster: map[multicluster.ClusterName]int{}}
}

// reconciler returns a reconciler that spends work on every request (simulated work, not synchronisation), and
// for objects named tick reads the object from its cluster's cache and records the latency of its last write,
// once per write.
func (l *latencies) reconciler(mgr mcmanager.Manager, tick string, work time.Duration) mcreconcile.Func {
	return func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
		if work > 0 {
			time.Sleep(work)
		}
		now := time.Now()
		l.mu.Lock()
		if l.count == 0 {
			l.first = now
		}
		l.count++
		l.perCluster[req.ClusterName]++
		l.last = now
		l.mu.Unlock()
		if req.Name != tick {
			return reconcile.Result{}, nil
		}
		cl, err := mgr.GetCluster(ctx, req.ClusterName)
		if err != nil {
			return reconcile.Result{}, nil // a cluster on its way out
		}
		cm := &corev1.ConfigMap{}
		if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		stamp := cm.Annotations[writtenAnnotation]
		written, err := strconv.ParseInt(stamp, 10, 64)
		if err != nil {
			return reconcile.Result{}, nil // not ticked yet
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		pending := l.pending[req.ClusterName]
		for len(pending) > 0 && pending[0] <= written {
			l.lat = append(l.lat, now.Sub(time.Unix(0, pending[0])))
			pending = pending[1:]
		}
		l.pending[req.ClusterName] = pending
		return reconcile.Result{}, nil
	}
}

// reconciles returns how many reconciles ran, and the time from the first to the last.
func (l *latencies) reconciles() (int, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count, l.last.Sub(l.first)
}

// of returns how many reconciles of the cluster ran.
func (l *latencies) of(cluster multicluster.ClusterName) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.perCluster[cluster]
}

// unreconciled returns how many writes have not been reconciled yet.
func (l *latencies) unreconciled() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, p := range l.pending {
		n += len(p)
	}
	return n
}

// samples returns a copy of the latencies recorded so far.
func (l *latencies) samples() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Duration(nil), l.lat...)
}

// tick writes the current time into the annotation of object name in ns, which cluster clusterName reconciles,
// and returns how long the write took.
func (l *latencies) tick(ctx context.Context, c client.Client, clusterName multicluster.ClusterName, ns, name string) (time.Duration, error) {
	start := time.Now()
	l.mu.Lock()
	l.pending[clusterName] = append(l.pending[clusterName], start.UnixNano())
	l.mu.Unlock()
	patch := client.RawPatch("application/merge-patch+json", fmt.Appendf(nil,
		`{"metadata":{"annotations":{%q:%q}}}`, writtenAnnotation, strconv.FormatInt(start.UnixNano(), 10)))
	err := c.Patch(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, patch)
	return time.Since(start), err
}
