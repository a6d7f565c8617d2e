// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package rig

import (
	"slices"
	"strconv"
	"sync"
	"time"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Kinds of the objects the writers write and the reconcilers read: each kind has an informer per cluster.
const (
	KindConfigMap = "ConfigMap"
	KindSecret    = "Secret"
)

// Kinds lists the kinds the writers write.
var Kinds = []string{KindConfigMap, KindSecret}

// ObjectKey identifies an object the reconcilers see: its cluster (as the manager names it), kind and name (every
// object of the rig lives in Namespace).
type ObjectKey struct {
	Cluster multicluster.ClusterName
	Kind    string
	Name    string
}

// Observation is what a reconcile saw of an object.
type Observation struct {
	// Value is the object's data "v", a number that grows with every write; 0 when Deleted.
	Value int64
	// Deleted is set when the object was not found.
	Deleted bool
	// At is when the reconcile read it.
	At time.Time
	// Identity names the endpoint and credentials of the cluster.Cluster the reconcile read it from (see
	// Rig.Identity).
	Identity string
}

// pendingWrite is a write the reconcilers have not seen yet.
type pendingWrite struct {
	value int64
	began time.Time
	phase string
}

// Observer records what the reconcilers of one manager see: the last observation of every object, the latency of
// every write from its start to the first reconcile that saw it (or a later value of the object), grouped by
// phase and cluster, when each cluster resumed after a mark, and which identities served each cluster when. It is
// safe for concurrent use.
type Observer struct {
	mu         sync.Mutex
	phase      string
	last       map[ObjectKey]Observation
	pending    map[ObjectKey][]pendingWrite
	latencies  map[string]map[multicluster.ClusterName][]time.Duration
	reconciles int64
	// resumeMark is, per cluster, the time after which the first write seen counts as the cluster's resumption;
	// resumed holds, per cluster and kind, how long after the mark that was.
	resumeMark map[multicluster.ClusterName]time.Time
	resumed    map[multicluster.ClusterName]map[string]time.Duration
	// identities holds, per cluster, the runs of reconciles through one identity, oldest first (at most
	// maxIdentityRuns).
	identities map[multicluster.ClusterName][]identityRun
}

// identityRun is a run of consecutive reconciles of a cluster through one identity.
type identityRun struct {
	identity    string
	first, last time.Time
}

// maxIdentityRuns bounds the runs kept per cluster.
const maxIdentityRuns = 1000

// NewObserver returns an empty observer in phase "start".
func NewObserver() *Observer {
	return &Observer{
		phase:      "start",
		last:       map[ObjectKey]Observation{},
		pending:    map[ObjectKey][]pendingWrite{},
		latencies:  map[string]map[multicluster.ClusterName][]time.Duration{},
		resumeMark: map[multicluster.ClusterName]time.Time{},
		resumed:    map[multicluster.ClusterName]map[string]time.Duration{},
		identities: map[multicluster.ClusterName][]identityRun{},
	}
}

// SetPhase names the phase that writes starting from now belong to.
func (o *Observer) SetPhase(phase string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.phase = phase
}

// Writing records that a write of value to the object begins at began, in the current phase followed by tag (a
// writer's tag, such as "/faulted" while its member is broken). Call it before sending the write, so that a
// reconcile that sees the value before the write returns is counted, and Failed if the write fails.
func (o *Observer) Writing(key ObjectKey, value int64, began time.Time, tag string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if last, ok := o.last[key]; ok && !last.Deleted && last.Value >= value {
		return
	}
	o.pending[key] = append(o.pending[key], pendingWrite{value: value, began: began, phase: o.phase + tag})
}

// Failed forgets a write that failed. (A write whose failure was ambiguous, a timeout, may still have been
// applied; the reconcile that sees it then finds nothing pending, and the final state is checked against the API
// server anyway.)
func (o *Observer) Failed(key ObjectKey, value int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pending[key] = slices.DeleteFunc(o.pending[key], func(w pendingWrite) bool { return w.value == value })
	if len(o.pending[key]) == 0 {
		delete(o.pending, key)
	}
}

// Record records what a reconcile saw.
func (o *Observer) Record(key ObjectKey, seen Observation) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.reconciles++
	o.last[key] = seen
	runs := o.identities[key.Cluster]
	if n := len(runs); n > 0 && runs[n-1].identity == seen.Identity {
		runs[n-1].last = seen.At
	} else {
		if n >= maxIdentityRuns {
			runs = runs[1:]
		}
		o.identities[key.Cluster] = append(runs, identityRun{identity: seen.Identity, first: seen.At, last: seen.At})
	}

	if seen.Deleted {
		return
	}
	writes := o.pending[key]
	n := 0
	for n < len(writes) && writes[n].value <= seen.Value {
		w := writes[n]
		n++
		byCluster := o.latencies[w.phase]
		if byCluster == nil {
			byCluster = map[multicluster.ClusterName][]time.Duration{}
			o.latencies[w.phase] = byCluster
		}
		byCluster[key.Cluster] = append(byCluster[key.Cluster], max(seen.At.Sub(w.began), 0))
		if mark, ok := o.resumeMark[key.Cluster]; ok && !w.began.Before(mark) {
			kinds := o.resumed[key.Cluster]
			if kinds == nil {
				kinds = map[string]time.Duration{}
				o.resumed[key.Cluster] = kinds
			}
			if _, done := kinds[key.Kind]; !done {
				kinds[key.Kind] = seen.At.Sub(mark)
			}
		}
	}
	if n == len(writes) {
		delete(o.pending, key)
	} else {
		o.pending[key] = writes[n:]
	}
}

// Last returns the last observation of an object.
func (o *Observer) Last(key ObjectKey) (Observation, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	seen, ok := o.last[key]
	return seen, ok
}

// Keys returns the objects of a cluster observed so far.
func (o *Observer) Keys(cluster multicluster.ClusterName) []ObjectKey {
	o.mu.Lock()
	defer o.mu.Unlock()
	var keys []ObjectKey
	for k := range o.last {
		if k.Cluster == cluster {
			keys = append(keys, k)
		}
	}
	return keys
}

// Reconciles returns how many reconciles were recorded.
func (o *Observer) Reconciles() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.reconciles
}

// Latencies returns the write-to-reconcile latencies of the writes of a phase to the given clusters (all clusters
// if none is given).
func (o *Observer) Latencies(phase string, clusters ...multicluster.ClusterName) []time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []time.Duration
	for c, ds := range o.latencies[phase] {
		if len(clusters) == 0 || slices.Contains(clusters, c) {
			out = append(out, ds...)
		}
	}
	return out
}

// Unseen returns, per cluster, how many writes of a phase the reconcilers have not seen (nor a later value of
// their object).
func (o *Observer) Unseen(phase string) map[multicluster.ClusterName]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[multicluster.ClusterName]int{}
	for k, writes := range o.pending {
		for _, w := range writes {
			if w.phase == phase {
				out[k.Cluster]++
			}
		}
	}
	return out
}

// DropPending forgets the writes not seen yet of a cluster, whose objects are gone with it (a cluster removed from
// the fleet).
func (o *Observer) DropPending(cluster multicluster.ClusterName) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for k := range o.pending {
		if k.Cluster == cluster {
			delete(o.pending, k)
		}
	}
	for k := range o.last {
		if k.Cluster == cluster {
			delete(o.last, k)
		}
	}
	delete(o.identities, cluster)
}

// MarkResume starts measuring when a cluster resumes: the first reconcile of each kind that sees a write begun at
// or after at counts, and Resumed reports how long after at it came.
func (o *Observer) MarkResume(cluster multicluster.ClusterName, at time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.resumeMark[cluster] = at
	delete(o.resumed, cluster)
}

// Resumed returns, per kind, how long after the mark the cluster's reconcilers first saw a write begun after it,
// for the kinds that have.
func (o *Observer) Resumed(cluster multicluster.ClusterName) map[string]time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string]time.Duration{}
	for k, d := range o.resumed[cluster] {
		out[k] = d
	}
	return out
}

// Through returns the first and the last reconcile of a cluster through an identity at or after since, and whether
// there was one.
func (o *Observer) Through(cluster multicluster.ClusterName, identity string, since time.Time) (first, last time.Time, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, run := range o.identities[cluster] {
		if run.identity != identity || run.last.Before(since) {
			continue
		}
		if !ok {
			first = run.first
			if first.Before(since) {
				first = since
			}
			ok = true
		}
		last = run.last
	}
	return first, last, ok
}

// formatValue renders a value as the writers store it.
func formatValue(v int64) string { return strconv.FormatInt(v, 10) }

// parseValue reads a value as the writers store it; anything else is 0.
func parseValue(s string) int64 {
	v, _ := strconv.ParseInt(s, 10, 64)
	return v
}
