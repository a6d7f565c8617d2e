// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
)

type valueKey struct{}

// The context package's key of cancellable contexts is found, and a context derived from a reconcileContext is
// registered with its work context: it ends in the call that ends the work, with no goroutine of its own, whether
// the work is a context of the context package or a lifetime derived from one.
func TestReconcileContextRegistersDerivedContextsWithItsWork(t *testing.T) {
	if cancelCtxKey == nil {
		t.Fatal("the context package's key of cancellable contexts was not found")
	}
	ignore := goleak.IgnoreCurrent()
	for name, newWork := range map[string]func(context.Context) (context.Context, context.CancelFunc){
		"context.WithCancel":    context.WithCancel,
		"clusters.WithLifetime": clusters.WithLifetime,
		"lifetime derived from a lifetime": func(parent context.Context) (context.Context, context.CancelFunc) {
			outer, _ := clusters.WithLifetime(parent)
			return clusters.WithLifetime(outer)
		},
	} {
		t.Run(name, func(t *testing.T) {
			parent, endParent := context.WithCancel(context.WithValue(t.Context(), valueKey{}, "v"))
			defer endParent()
			work, endWork := newWork(t.Context())
			rc := newReconcileContext(parent, work)
			if rc.Value(valueKey{}) != "v" {
				t.Errorf("Value() = %v, want the parent's v", rc.Value(valueKey{}))
			}
			derived, cancel := context.WithCancel(rc)
			defer cancel()
			timed, cancelTimed := context.WithTimeout(rc, time.Hour)
			defer cancelTimed()
			if rc.Err() != nil || derived.Err() != nil || context.Cause(rc) != nil {
				t.Fatal("ended before its work")
			}
			endWork()
			if !errors.Is(rc.Err(), context.Canceled) || !errors.Is(context.Cause(rc), context.Canceled) {
				t.Errorf("Err() = %v, Cause() = %v, want context.Canceled", rc.Err(), context.Cause(rc))
			}
			// In the call that ended the work: registered with it, not watching it from a goroutine.
			if derived.Err() == nil || timed.Err() == nil {
				t.Error("a context derived from the reconcile's context did not end in the call that ended its work")
			}
			select {
			case <-rc.Done():
			default:
				t.Error("Done() is open after the work ended")
			}
		})
	}
	goleak.VerifyNone(t, ignore)
}
