// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import "context"

// WorkGate fences the work done for one engaged cluster. A coordinator that decides, piece of work by piece of
// work, whether this process may work on a cluster (the sharded coordinator, which hands clusters over between
// replicas) attaches a WorkGate to the context of each engagement it makes (WithWorkGate); the gate travels
// down with the engagement (Engagement.Gate), and the controllers of pkg/controller pass every reconcile of the
// engaged cluster through it. An engagement without a gate is not fenced.
type WorkGate interface {
	// StartWork is called before a piece of work for the cluster starts. If ok is false the work must not start.
	// Otherwise the work runs with workCtx, derived from ctx, which ends when the process must stop working on
	// the cluster, and done must be called once the work has returned.
	StartWork(ctx context.Context) (workCtx context.Context, done func(), ok bool)
}

// workGateKey is the context key of the WorkGate of an engagement.
type workGateKey struct{}

// WithWorkGate returns a copy of ctx that carries gate: engaging a cluster with it attaches the gate to the
// engagement. It keeps ctx's lifetime, values and deadline.
func WithWorkGate(ctx context.Context, gate WorkGate) context.Context {
	return context.WithValue(ctx, workGateKey{}, gate)
}

// WorkGateFrom returns the WorkGate ctx carries, or nil.
func WorkGateFrom(ctx context.Context) WorkGate {
	gate, _ := ctx.Value(workGateKey{}).(WorkGate)
	return gate
}
