// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package context_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mccontext "sigs.k8s.io/multicluster-runtime/pkg/context"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

func TestClusterFrom(t *testing.T) {
	tests := []struct {
		name   string
		ctx    func(context.Context) context.Context
		want   multicluster.ClusterName
		wantOK bool
	}{
		{
			name: "no cluster",
			ctx:  func(ctx context.Context) context.Context { return ctx },
		},
		{
			name:   "named cluster",
			ctx:    func(ctx context.Context) context.Context { return mccontext.WithCluster(ctx, "c") },
			want:   "c",
			wantOK: true,
		},
		{
			name:   "empty name is the host cluster",
			ctx:    func(ctx context.Context) context.Context { return mccontext.WithCluster(ctx, "") },
			want:   "",
			wantOK: true,
		},
		{
			name: "innermost cluster wins",
			ctx: func(ctx context.Context) context.Context {
				return mccontext.WithCluster(mccontext.WithCluster(ctx, "outer"), "inner")
			},
			want:   "inner",
			wantOK: true,
		},
		{
			name: "survives derived contexts",
			ctx: func(ctx context.Context) context.Context {
				ctx, cancel := context.WithCancel(mccontext.WithCluster(ctx, "c"))
				cancel()
				return ctx
			},
			want:   "c",
			wantOK: true,
		},
		{
			name: "a string value under another key is not a cluster",
			ctx: func(ctx context.Context) context.Context {
				type otherKey struct{}
				return context.WithValue(ctx, otherKey{}, "c")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := mccontext.ClusterFrom(tt.ctx(t.Context()))
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("ClusterFrom() = (%q, %v), want (%q, %v)", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestWithClusterDoesNotModifyParent(t *testing.T) {
	parent := t.Context()
	_ = mccontext.WithCluster(parent, "c")
	if name, ok := mccontext.ClusterFrom(parent); ok {
		t.Errorf("parent context carries cluster %q after WithCluster", name)
	}
}

func TestReconcilerWithClusterInContext(t *testing.T) {
	tests := []struct {
		name    string
		cluster multicluster.ClusterName
	}{
		{name: "fleet cluster", cluster: "c"},
		{name: "host cluster", cluster: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := types.NamespacedName{Namespace: "ns", Name: "name"}
			want := reconcile.Result{RequeueAfter: time.Minute}

			var (
				calls     int
				gotReq    reconcile.Request
				gotName   multicluster.ClusterName
				gotInCtx  bool
				gotParent any
			)
			type parentKey struct{}
			inner := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
				calls++
				gotReq = req
				gotName, gotInCtx = mccontext.ClusterFrom(ctx)
				gotParent = ctx.Value(parentKey{})
				return want, nil
			})

			ctx := context.WithValue(t.Context(), parentKey{}, "kept")
			res, err := mccontext.ReconcilerWithClusterInContext(inner).Reconcile(ctx,
				mcreconcile.Request{Request: reconcile.Request{NamespacedName: key}, ClusterName: tt.cluster})
			if err != nil {
				t.Fatalf("Reconcile() error = %v", err)
			}
			if res != want {
				t.Errorf("Reconcile() result = %+v, want %+v", res, want)
			}
			if calls != 1 {
				t.Fatalf("inner reconciler called %d times, want 1", calls)
			}
			if gotReq.NamespacedName != key {
				t.Errorf("inner reconciler got request %v, want %v", gotReq, key)
			}
			if gotName != tt.cluster || !gotInCtx {
				t.Errorf("cluster in context = (%q, %v), want (%q, true)", gotName, gotInCtx, tt.cluster)
			}
			if gotParent != "kept" {
				t.Errorf("inner context lost the caller's values: got %v", gotParent)
			}
		})
	}
}

func TestReconcilerWithClusterInContextPassesErrors(t *testing.T) {
	errWant := context.DeadlineExceeded
	inner := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
		return reconcile.Result{}, errWant
	})
	_, err := mccontext.ReconcilerWithClusterInContext(inner).Reconcile(t.Context(), mcreconcile.Request{ClusterName: "c"})
	if err != errWant { //nolint:errorlint // the very same error must come back
		t.Errorf("Reconcile() error = %v, want %v", err, errWant)
	}
}
