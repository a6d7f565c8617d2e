// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// identityCluster is a cluster whose config reaches the API server named by its id; its other methods panic.
type identityCluster struct {
	cluster.Cluster
	id string
}

func (c *identityCluster) GetConfig() *rest.Config { return &rest.Config{Host: c.id} }

// registered returns the registration held under name, visible or not.
func (r *Registry[T]) registered(name multicluster.ClusterName) *registration[T] {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.clusters[name]
}

// The teardown of an engagement, which may already run when a replacement is registered, compares identities: it
// forgets its own registration and never the replacement.
func TestRegistryTeardownComparesIdentity(t *testing.T) {
	tests := []struct {
		name    string
		replace func(t *testing.T, r *Registry[*identityCluster], cl *identityCluster)
	}{
		{name: "replaced by Engage", replace: func(t *testing.T, r *Registry[*identityCluster], cl *identityCluster) {
			if err := r.Engage(t.Context(), "a", cl); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "replaced by AddOrReplace", replace: func(t *testing.T, r *Registry[*identityCluster], cl *identityCluster) {
			if err := r.AddOrReplace(t.Context(), "a", cl); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "removed, then added", replace: func(t *testing.T, r *Registry[*identityCluster], cl *identityCluster) {
			r.Remove("a")
			if err := r.Add(t.Context(), "a", cl); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry[*identityCluster]()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if err := r.Engage(ctx, "a", &identityCluster{id: "old"}); err != nil {
				t.Fatal(err)
			}
			old := r.registered("a")
			replacement := &identityCluster{id: "new"}
			tt.replace(t, r, replacement)

			// The old engagement's teardown, as if it had started before the replacement.
			r.forget("a", old)
			if got, err := r.GetTyped(t.Context(), "a"); err != nil || got != replacement {
				t.Fatalf("after the old teardown, GetTyped = %v, %v; want the replacement", got, err)
			}
		})
	}
}

// When an engaged cluster's context ends, its registration is deleted, not only hidden.
func TestRegistryForgetsEndedEngagements(t *testing.T) {
	r := NewRegistry[*identityCluster]()
	ctx, cancel := context.WithCancel(t.Context())
	if err := r.Engage(ctx, "a", &identityCluster{id: "a"}); err != nil {
		t.Fatal(err)
	}
	cancel()
	err := wait.PollUntilContextTimeout(t.Context(), 5*time.Millisecond, 30*time.Second, true,
		func(context.Context) (bool, error) { return r.registered("a") == nil, nil })
	if err != nil {
		t.Fatal("the registration of an ended engagement was not deleted")
	}
}
