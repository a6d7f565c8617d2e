// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Engagements is the bookkeeping of the clusters engaged with one component, kept by every layer a cluster is
// engaged through (the manager, the coordinators, the controllers) and meant for custom Coordinators and other
// multicluster.Aware components too: a name → engagement map that follows the rules of multicluster.Aware.Engage.
//
//   - Engaging the instance engaged under a name, while that engagement lives, is a no-op: the first engagement
//     keeps its context.
//   - Engaging another instance, or any instance once the engagement's context has ended, replaces the engagement.
//   - The end of a replaced engagement's context never removes the engagement that replaced it.
//   - When the context of the current engagement of a name ends, the engagement is forgotten, once, and the
//     function given to NewEngagements is called for it.
//   - Engaging with a context that has ended already records nothing.
//
// Watching an engagement's context costs one AfterFunc, an entry in the context's list of watchers when it is a
// WithLifetime (as providers' contexts are), which lives as long as the context: an engagement that is replaced or
// forgotten stays referenced by that entry, and is dropped, until the context ends. The work gate a coordinator
// attached to the context (WithWorkGate) travels with the engagement (Engagement.Gate).
//
// Engagements never calls the caller's code (the ended function, the context) while it holds its lock, so its
// methods may be called from the ended function and while the caller holds a lock of its own. It is safe for concurrent use; the zero value is ready to use and
// calls no function when an engagement ends. V is the state the caller keeps for each engagement
// (Engagement.Value); use struct{} for none.
type Engagements[V any] struct {
	ended func(*Engagement[V])

	mu     sync.RWMutex
	byName map[multicluster.ClusterName]*Engagement[V]
}

// Engagement is one cluster engaged under a name for the lifetime of a context, as recorded by Engagements.
type Engagement[V any] struct {
	// Value is the caller's state of the engagement. Engagements never reads or writes it: the caller guards it.
	Value V

	name    multicluster.ClusterName
	cluster cluster.Cluster
	ctx     context.Context
}

// NewEngagements returns empty bookkeeping. ended, if not nil, is called once for each engagement whose context
// ends while it is the current engagement of its name, after it has been forgotten, in a goroutine that watches
// the context (see AfterFunc): it must not block for long. By the time it runs the name may have been engaged
// again; engagements that are replaced or forgotten with Forget are not passed to it.
func NewEngagements[V any](ended func(*Engagement[V])) *Engagements[V] {
	return &Engagements[V]{ended: ended}
}

// Engage engages cl under name for the lifetime of ctx. It returns the new engagement and the engagement it
// replaced, nil if the name held none; the end of a replaced engagement's context changes nothing here. It returns nil, nil, and changes nothing, when ctx has ended or cl is the instance engaged
// under name and that engagement lives. It never blocks on the cluster.
func (e *Engagements[V]) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) (eng, replaced *Engagement[V]) {
	if ctx.Err() != nil {
		return nil, nil
	}
	e.mu.Lock()
	replaced = e.byName[name]
	if replaced != nil && replaced.cluster == cl && !replaced.Ended() {
		e.mu.Unlock()
		return nil, nil
	}
	eng = &Engagement[V]{name: name, cluster: cl, ctx: ctx}
	if e.byName == nil {
		e.byName = map[multicluster.ClusterName]*Engagement[V]{}
	}
	e.byName[name] = eng
	e.mu.Unlock()

	AfterFunc(ctx, func() { e.end(eng) })
	return eng, replaced
}

// Get returns the current engagement of name, or nil if the name has none or its context has ended.
func (e *Engagements[V]) Get(name multicluster.ClusterName) *Engagement[V] {
	e.mu.RLock()
	eng := e.byName[name]
	e.mu.RUnlock()
	if eng == nil || eng.Ended() {
		return nil
	}
	return eng
}

// Forget forgets eng if it is still the current engagement of its name, without calling the ended function, and
// reports whether it did. Use it to end an engagement before its context ends (a cluster that failed to engage, a
// component that stops). It is idempotent.
func (e *Engagements[V]) Forget(eng *Engagement[V]) bool {
	return e.remove(eng)
}

// All returns the live engagements, sorted by name: a snapshot, which the caller may use without restriction.
func (e *Engagements[V]) All() []*Engagement[V] {
	e.mu.RLock()
	all := make([]*Engagement[V], 0, len(e.byName))
	for _, eng := range e.byName {
		if !eng.Ended() {
			all = append(all, eng)
		}
	}
	e.mu.RUnlock()
	slices.SortFunc(all, func(a, b *Engagement[V]) int { return cmp.Compare(a.name, b.name) })
	return all
}

// Names returns the names of the live engagements, sorted.
func (e *Engagements[V]) Names() []multicluster.ClusterName {
	e.mu.RLock()
	names := make([]multicluster.ClusterName, 0, len(e.byName))
	for name, eng := range e.byName {
		if !eng.Ended() {
			names = append(names, name)
		}
	}
	e.mu.RUnlock()
	slices.Sort(names)
	return names
}

// Len returns the number of engagements held, including those whose context has just ended and that are about
// to be forgotten.
func (e *Engagements[V]) Len() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return len(e.byName)
}

// end forgets eng once its context has ended, unless it has been replaced or forgotten, and then reports it.
func (e *Engagements[V]) end(eng *Engagement[V]) {
	if e.remove(eng) && e.ended != nil {
		e.ended(eng)
	}
}

// remove deletes eng if it is the current engagement of its name, and reports whether it did.
func (e *Engagements[V]) remove(eng *Engagement[V]) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.byName[eng.name] != eng {
		return false
	}
	delete(e.byName, eng.name)
	return true
}

// Name returns the name the cluster is engaged under.
func (eng *Engagement[V]) Name() multicluster.ClusterName { return eng.name }

// Cluster returns the engaged cluster.
func (eng *Engagement[V]) Cluster() cluster.Cluster { return eng.cluster }

// Context returns the context the cluster was engaged with: the engagement's lifetime.
func (eng *Engagement[V]) Context() context.Context { return eng.ctx }

// Gate returns the work gate attached to the engagement's context (WithWorkGate), or nil if the work on the
// cluster is not fenced. It looks the gate up in the context: a caller that passes every piece of work through it
// keeps it (in Value), as the controllers of pkg/controller do.
func (eng *Engagement[V]) Gate() WorkGate { return WorkGateFrom(eng.ctx) }

// Ended reports whether the engagement's context has ended.
func (eng *Engagement[V]) Ended() bool { return eng.ctx.Err() != nil }
