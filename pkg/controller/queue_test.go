// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"testing"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	"sigs.k8s.io/multicluster-runtime/pkg/controller/fairqueue"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

func TestDefaultQueue(t *testing.T) {
	tests := []struct {
		name             string
		usePriorityQueue *bool
		wantPriority     bool
	}{
		{name: "UsePriorityQueue unset", wantPriority: true},
		{name: "UsePriorityQueue true", usePriorityQueue: ptr.To(true), wantPriority: true},
		{name: "UsePriorityQueue false", usePriorityQueue: ptr.To(false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newQueue := defaultNewQueue(controller.TypedOptions[mcreconcile.Request]{UsePriorityQueue: tt.usePriorityQueue})
			q := newQueue("", workqueue.DefaultTypedControllerRateLimiter[mcreconcile.Request]())
			defer q.ShutDown()
			if _, ok := q.(priorityqueue.PriorityQueue[mcreconcile.Request]); ok != tt.wantPriority {
				t.Errorf("priority queue: %v, want %v", ok, tt.wantPriority)
			}
			if _, ok := q.(fairqueue.ClusterForgetter); !ok {
				t.Error("the default queue cannot forget clusters: it is not fair")
			}
		})
	}
}
