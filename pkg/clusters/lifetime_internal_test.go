// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// watchers returns how many watchers the lifetime holds.
func (l *lifetime) watchers() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for w := l.first; w != nil; w = w.next {
		n++
	}
	return n
}

type lifetimeKey struct{}

// A lifetime ends in the call that ends its parent, reporting the parent's cause, and keeps the parent's values and
// deadline.
func TestLifetimeEndsWithItsParent(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	deadline := time.Now().Add(time.Hour)
	withDeadline, cancelDeadline := context.WithDeadline(t.Context(), deadline)
	defer cancelDeadline()
	parent, cancelParent := context.WithCancelCause(context.WithValue(withDeadline, lifetimeKey{}, "v"))
	ctx, cancel := WithLifetime(parent)
	defer cancel()

	if got := ctx.Value(lifetimeKey{}); got != "v" {
		t.Errorf("Value() = %v, want the parent's value", got)
	}
	if got, ok := ctx.Deadline(); !ok || !got.Equal(deadline) {
		t.Errorf("Deadline() = %v, %v, want the parent's", got, ok)
	}
	ran := make(chan struct{})
	AfterFunc(ctx, func() { close(ran) })
	derived, cancelDerived := context.WithCancel(context.WithValue(ctx, lifetimeKey{}, "w"))
	defer cancelDerived()

	cause := errors.New("gone")
	cancelParent(cause)
	if ctx.Err() == nil {
		t.Error("the lifetime is live after the call that ended its parent")
	}
	<-ctx.Done()
	<-ran
	<-derived.Done()
	if !errors.Is(ctx.Err(), context.Canceled) || !errors.Is(context.Cause(ctx), cause) {
		t.Errorf("Err() = %v, Cause() = %v, want Canceled and the parent's cause", ctx.Err(), context.Cause(ctx))
	}
	cancel()
	goleak.VerifyNone(t, ignore)
}

// A lifetime derived from a lifetime ends in the call that ends its parent, and one cancelled on its own leaves
// nothing in its parent.
func TestLifetimeOfALifetime(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	parent, cancelParent := WithLifetime(t.Context())
	first, cancelFirst := WithLifetime(parent)
	second, cancelSecond := WithLifetime(parent)
	defer cancelSecond()
	if n := parent.(*lifetime).watchers(); n != 2 {
		t.Fatalf("parent holds %d watchers, want 2", n)
	}

	cancelFirst()
	if first.Err() == nil || parent.Err() != nil || second.Err() != nil {
		t.Fatalf("after cancelling the first child: first %v, parent %v, second %v", first.Err(), parent.Err(), second.Err())
	}
	if n := parent.(*lifetime).watchers(); n != 1 {
		t.Errorf("parent holds %d watchers after a child was cancelled, want 1", n)
	}

	cancelParent()
	if second.Err() == nil {
		t.Error("a child lifetime is still live after its parent was cancelled")
	}
	if !errors.Is(context.Cause(second), context.Canceled) {
		t.Errorf("Cause() = %v, want Canceled", context.Cause(second))
	}
	if n := parent.(*lifetime).watchers(); n != 0 {
		t.Errorf("an ended lifetime holds %d watchers", n)
	}

	// Derived from a lifetime that has ended: ended at once.
	late, cancelLate := WithLifetime(parent)
	defer cancelLate()
	if late.Err() == nil {
		t.Error("a lifetime derived from an ended one is live")
	}
	goleak.VerifyNone(t, ignore)
}

// AfterFunc runs its function once the lifetime ends, unless stopped first; stopping leaves nothing behind.
func TestLifetimeAfterFunc(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	ctx, cancel := WithLifetime(t.Context())
	l := ctx.(*lifetime)

	stop := AfterFunc(ctx, func() { t.Error("a stopped function ran") })
	if !stop() {
		t.Error("stop() = false before the lifetime ended")
	}
	if stop() {
		t.Error("stop() = true twice")
	}
	if n := l.watchers(); n != 0 {
		t.Errorf("lifetime holds %d watchers after stop, want 0", n)
	}

	ran := make(chan int, 2)
	stopFirst := AfterFunc(ctx, func() { ran <- 1 })
	AfterFunc(ctx, func() { ran <- 2 })
	cancel()
	got := <-ran + <-ran
	if got != 3 {
		t.Errorf("functions ran %d, want both", got)
	}
	if stopFirst() {
		t.Error("stop() = true after the function ran")
	}

	// After the end, the function runs at once.
	late := make(chan struct{})
	if AfterFunc(ctx, func() { close(late) })() {
		t.Error("stop() = true for a function registered after the end")
	}
	<-late

	// Any other context: context.AfterFunc.
	plain, cancelPlain := context.WithCancel(t.Context())
	plainRan := make(chan struct{})
	AfterFunc(plain, func() { close(plainRan) })
	cancelPlain()
	<-plainRan
	goleak.VerifyNone(t, ignore)
}

// A lifetime derived from a context that has ended, or that never ends, behaves as context.WithCancel's would.
func TestLifetimeOfEndedAndEndlessParents(t *testing.T) {
	ended, cancelEnded := context.WithCancel(t.Context())
	cancelEnded()
	ctx, cancel := WithLifetime(ended)
	defer cancel()
	if ctx.Err() == nil {
		t.Error("a lifetime derived from an ended context is live")
	}

	endless, cancelEndless := WithLifetime(context.WithoutCancel(t.Context()))
	if endless.Err() != nil {
		t.Fatal("a lifetime of an endless context has ended")
	}
	cancelEndless()
	cancelEndless()
	if endless.Err() == nil {
		t.Error("cancel did not end a lifetime of an endless context")
	}
}
