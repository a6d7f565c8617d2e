// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
)

// reconcileContext is the context of a reconcile of an engaged cluster whose own context (the embedded one, which
// the inner controller derives from the context it runs with) ends only when the controller stops. Its values and
// deadline are that context's; it ends with work, the engagement's work context, which ends with the engagement's
// context, when the engagement is stopped (the cluster replaced, the controller stopped) and so, since the
// controller stops every engagement as it stops, with the controller as well.
//
// It costs one small allocation per reconcile, where a context of context.WithCancel would cost a registration in
// the controller's context, and the controller would have to track it to cancel it with the engagement.
type reconcileContext struct {
	context.Context
	work context.Context
}

func newReconcileContext(parent, work context.Context) context.Context {
	return &reconcileContext{Context: parent, work: work}
}

// Done is closed when the engagement's work ends.
func (c *reconcileContext) Done() <-chan struct{} { return c.work.Done() }

// Err is nil until Done is closed, then the error of the work's end (context.Canceled).
func (c *reconcileContext) Err() error { return c.work.Err() }

// Value is the reconcile's own context's value for key, except for the context package's own key of a cancellable
// context: for that one it is work's, so that a context derived from this one with the context package is
// registered with work (and ends with it, as with any cancellable parent), and context.Cause reports why work ended.
func (c *reconcileContext) Value(key any) any {
	if key == cancelCtxKey {
		return c.work.Value(key)
	}
	return c.Context.Value(key)
}

// AfterFunc arranges to call f after the context ends (see clusters.AfterFunc). The context package uses it for
// the contexts derived from this one when it cannot register them with work directly.
func (c *reconcileContext) AfterFunc(f func()) (stop func() bool) {
	return clusters.AfterFunc(c.work, f)
}

// cancelCtxKey is the key for which the context package's cancellable contexts return themselves from Value. The
// package looks its parent up by it when it derives a context: reconcileContext answers it with its work context.
// The package does not export the key; findCancelCtxKey learns it from the package itself, once. Should the package
// ever stop asking, the key is nil, which no Value call is made with, and the contexts derived from a
// reconcileContext are ended through its AfterFunc instead.
var cancelCtxKey = findCancelCtxKey()

// findCancelCtxKey derives a cancellable context from a probe and returns the first key the context package asks
// the probe's Value for while it looks for a cancellable parent.
func findCancelCtxKey() any {
	p := &keyProbe{Context: context.Background(), done: make(chan struct{})}
	_, cancel := context.WithCancel(p)
	cancel()
	return p.key
}

// keyProbe is a context that never ends (its Done channel is never closed) and records the first key its Value is
// asked for. It has AfterFunc, so that deriving a context from it starts no goroutine.
type keyProbe struct {
	context.Context
	done chan struct{}
	key  any // nil until asked: a key of Value is never nil
}

func (p *keyProbe) Done() <-chan struct{} { return p.done }

func (p *keyProbe) Value(key any) any {
	if p.key == nil {
		p.key = key
	}
	return nil
}

func (p *keyProbe) AfterFunc(func()) func() bool { return func() bool { return true } }
