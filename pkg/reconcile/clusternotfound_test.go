// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

func TestClusterNotFoundWrapper(t *testing.T) {
	errOther := errors.New("boom")
	tests := []struct {
		name    string
		result  reconcile.Result
		err     error
		want    reconcile.Result
		wantErr error
	}{
		{
			name: "success passes through",
		},
		{
			name:   "requeue passes through",
			result: reconcile.Result{RequeueAfter: time.Minute},
			want:   reconcile.Result{RequeueAfter: time.Minute},
		},
		{
			name:    "other error passes through",
			result:  reconcile.Result{RequeueAfter: time.Second},
			err:     errOther,
			want:    reconcile.Result{RequeueAfter: time.Second},
			wantErr: errOther,
		},
		{
			name:   "ErrClusterNotFound becomes success without requeue",
			result: reconcile.Result{RequeueAfter: time.Minute},
			err:    multicluster.ErrClusterNotFound,
		},
		{
			name:   "wrapped ErrClusterNotFound becomes success without requeue",
			result: reconcile.Result{RequeueAfter: time.Minute},
			err:    fmt.Errorf("getting cluster %q: %w", "gone", multicluster.ErrClusterNotFound),
		},
		{
			name:   "joined ErrClusterNotFound becomes success without requeue",
			err:    errors.Join(errOther, multicluster.ErrClusterNotFound),
			result: reconcile.Result{},
		},
		{
			name:    "ErrClusterNotFound formatted without %w passes through",
			err:     fmt.Errorf("cluster gone: %v", multicluster.ErrClusterNotFound), //nolint:errorlint // deliberately not wrapped
			wantErr: errors.New("cluster gone: cluster not found"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := mcreconcile.Request{ClusterName: "c"}
			var got mcreconcile.Request
			calls := 0
			inner := mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
				calls++
				got = req
				return tt.result, tt.err
			})

			res, err := mcreconcile.NewClusterNotFoundWrapper[mcreconcile.Request](inner).Reconcile(t.Context(), want)

			if calls != 1 || got != want {
				t.Fatalf("wrapped reconciler called %d times with %v, want once with %v", calls, got, want)
			}
			if res != tt.want {
				t.Errorf("result = %+v, want %+v", res, tt.want)
			}
			switch {
			case tt.wantErr == nil && err != nil:
				t.Errorf("error = %v, want nil", err)
			case tt.wantErr != nil && (err == nil || err.Error() != tt.wantErr.Error()):
				t.Errorf("error = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

type namedReconciler struct{}

func (namedReconciler) Reconcile(context.Context, string) (reconcile.Result, error) {
	return reconcile.Result{}, nil
}

func (namedReconciler) String() string { return "my-reconciler" }

func TestClusterNotFoundWrapperString(t *testing.T) {
	w := mcreconcile.NewClusterNotFoundWrapper[string](namedReconciler{})
	s, ok := w.(fmt.Stringer)
	if !ok {
		t.Fatalf("%T does not implement fmt.Stringer", w)
	}
	if got := s.String(); !strings.Contains(got, "ClusterNotFoundWrapper") || !strings.Contains(got, "my-reconciler") {
		t.Errorf("String() = %q, want it to name the wrapper and the wrapped reconciler", got)
	}
}
