// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"context"
	"sync"
)

// WithLifetime returns a copy of parent that is cancelled when the returned cancel function is called or when
// parent ends, whichever happens first, as context.WithCancel does. It is meant for the lifetime of one engaged
// cluster, which every layer that engages the cluster (manager, coordinator, controller, sources) watches for its
// end: the returned context is cheap to watch with AfterFunc and cheap to derive further lifetimes from.
//
//   - AfterFunc on it, and WithLifetime from it, add an entry to its list of watchers instead of a context of their
//     own, a child registration in its context and a goroutine when it ends.
//   - It ends in the call that ends parent, as a context of context.WithCancel does. A lifetime derived from a
//     lifetime is ended by its parent's list: in the call that cancels the parent, or, when the parent ended with
//     its own parent, as soon as the parent's watchers run.
//   - Everything else behaves as for a context of context.WithCancel: values and the deadline are parent's,
//     contexts derived from it with the context package end with it, and context.Cause reports the cause of its
//     end.
//
// Cancelling it releases what it holds in its parent; calling cancel again is a no-op.
func WithLifetime(parent context.Context) (context.Context, context.CancelFunc) {
	l := newLifetime(parent)
	return l, l.cancel
}

// AfterFunc arranges to call f, in a goroutine of its own, after ctx ends, as context.AfterFunc does, and returns
// the function that stops that: it returns true if it stopped f from being run, false if f has been started or
// stopped already. For a context returned by WithLifetime, it costs one entry in the lifetime's list of watchers
// (and the watchers of one lifetime run one after the other, in one goroutine); for any other context it is
// context.AfterFunc. f must not block for long.
func AfterFunc(ctx context.Context, f func()) (stop func() bool) {
	l, ok := ctx.(*lifetime)
	if !ok {
		return context.AfterFunc(ctx, f)
	}
	w := &watcher{of: l, f: f}
	if !l.watch(w) {
		go f()
		return stopped
	}
	return w.stop
}

// stopped is the stop function of an AfterFunc whose function has started already.
func stopped() bool { return false }

// lifetime is the context of WithLifetime: a cancelCtx of the context package (so that contexts derived from it
// with that package register with it as usual, and Cause works), detached from its parent when the parent is a
// lifetime, plus the list of watchers that AfterFunc and WithLifetime add, run when it ends.
type lifetime struct {
	context.Context

	cancelInner context.CancelCauseFunc
	// asChild is this lifetime's entry in its parent's list, when its parent is a lifetime.
	asChild watcher

	// first is the list of watchers, most recent first (guarded by mu, as are the links of the watchers).
	first *watcher
	// stopParent stops the context.AfterFunc that ends this lifetime with a parent that is not a lifetime.
	stopParent func() bool
	mu         sync.Mutex
	ended      bool
}

// watcher is one entry in a lifetime's list: a function to run, or a lifetime to end, when the lifetime ends.
type watcher struct {
	of         *lifetime
	prev, next *watcher
	f          func()
	child      *lifetime
}

// linkedLocked reports whether w is in l's list.
func (l *lifetime) linkedLocked(w *watcher) bool {
	return w.prev != nil || l.first == w
}

// detached is a parent context stripped of its end: its values and deadline only.
type detached struct{ context.Context }

func (detached) Done() <-chan struct{} { return nil }
func (detached) Err() error            { return nil }

func newLifetime(parent context.Context) *lifetime {
	if p, ok := parent.(*lifetime); ok {
		// Detached from p's context: p ends it through its list, without a registration in p's context.
		inner, cancel := context.WithCancelCause(detached{parent})
		l := &lifetime{Context: inner, cancelInner: cancel}
		l.asChild.child = l
		l.asChild.of = p
		if !p.watch(&l.asChild) {
			l.end(context.Cause(p))
		}
		return l
	}
	// A child of parent as context.WithCancel's, so that it ends in the call that ends parent; the AfterFunc then
	// ends what watches it.
	inner, cancel := context.WithCancelCause(parent)
	l := &lifetime{Context: inner, cancelInner: cancel}
	if parent.Done() == nil {
		return l
	}
	if parent.Err() != nil {
		l.end(context.Cause(parent))
		return l
	}
	stop := context.AfterFunc(parent, func() { l.end(context.Cause(parent)) })
	l.mu.Lock()
	if l.ended {
		l.mu.Unlock()
		stop()
		return l
	}
	l.stopParent = stop
	l.mu.Unlock()
	return l
}

func (l *lifetime) cancel() {
	l.end(context.Canceled)
}

// watch adds w to the list. It returns false, leaving w out, if the lifetime has ended.
func (l *lifetime) watch(w *watcher) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return false
	}
	w.prev, w.next = nil, l.first
	if l.first != nil {
		l.first.prev = w
	}
	l.first = w
	return true
}

// unwatch removes w from the list; it returns false if w was not in it.
func (l *lifetime) unwatch(w *watcher) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.linkedLocked(w) {
		return false
	}
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		l.first = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	}
	w.prev, w.next = nil, nil
	return true
}

func (w *watcher) stop() bool {
	return w.of.unwatch(w)
}

// end ends the lifetime with cause, once: it cancels the context, leaves its parent, ends the lifetimes derived
// from it, in this goroutine, and runs its AfterFunc functions in one goroutine of their own.
func (l *lifetime) end(cause error) {
	l.mu.Lock()
	if l.ended {
		l.mu.Unlock()
		return
	}
	l.ended = true
	var (
		children []*lifetime
		funcs    []func()
	)
	for w := l.first; w != nil; {
		next := w.next
		w.prev, w.next = nil, nil
		if w.child != nil {
			children = append(children, w.child)
		} else {
			funcs = append(funcs, w.f)
		}
		w = next
	}
	l.first = nil
	stopParent := l.stopParent
	l.stopParent = nil
	l.mu.Unlock()

	l.cancelInner(cause)
	if stopParent != nil {
		stopParent()
	}
	if l.asChild.of != nil {
		l.asChild.of.unwatch(&l.asChild)
	}
	for _, child := range children {
		child.end(cause)
	}
	if len(funcs) > 0 {
		go func() {
			for _, f := range funcs {
				f()
			}
		}()
	}
}

func (l *lifetime) String() string {
	return "clusters.WithLifetime"
}
