// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package reconcile_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

func TestRequestString(t *testing.T) {
	tests := []struct {
		name string
		req  mcreconcile.Request
		want string
	}{
		{
			name: "cluster, namespaced object",
			req:  mcreconcile.Request{ClusterName: "c", Request: reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "name"}}},
			want: "cluster://c/ns/name",
		},
		{
			// The namespace segment stays, empty, as in controller-runtime's "/name".
			name: "cluster, cluster-scoped object",
			req:  mcreconcile.Request{ClusterName: "c", Request: reconcile.Request{NamespacedName: types.NamespacedName{Name: "name"}}},
			want: "cluster://c//name",
		},
		{
			name: "host cluster, namespaced object",
			req:  mcreconcile.Request{Request: reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "name"}}},
			want: "ns/name",
		},
		{
			name: "host cluster, cluster-scoped object",
			req:  mcreconcile.Request{Request: reconcile.Request{NamespacedName: types.NamespacedName{Name: "name"}}},
			want: "/name",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.req.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if tt.req.ClusterName == "" {
				if plain := tt.req.Request.String(); tt.req.String() != plain {
					t.Errorf("String() = %q for the host cluster, want controller-runtime's form %q", tt.req.String(), plain)
				}
			}
		})
	}
}

func TestRequestWithCluster(t *testing.T) {
	orig := mcreconcile.Request{ClusterName: "a", Request: reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "name"}}}

	moved := orig.WithCluster("b")
	if got := moved.Cluster(); got != "b" {
		t.Errorf("WithCluster(%q).Cluster() = %q", "b", got)
	}
	if moved.NamespacedName != orig.NamespacedName {
		t.Errorf("WithCluster changed the object key: got %v, want %v", moved.NamespacedName, orig.NamespacedName)
	}
	if got := orig.Cluster(); got != "a" {
		t.Errorf("WithCluster modified the receiver: Cluster() = %q, want %q", got, "a")
	}
	if got := orig.WithCluster("").Cluster(); got != "" {
		t.Errorf("WithCluster(\"\").Cluster() = %q, want the host cluster", got)
	}
}

func TestRequestIsComparableAcrossClusters(t *testing.T) {
	key := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "name"}}
	a := mcreconcile.Request{Request: key, ClusterName: "a"}
	b := mcreconcile.Request{Request: key, ClusterName: "b"}
	if a == b {
		t.Errorf("requests for the same object in different clusters compare equal: %v", a)
	}
	if a != b.WithCluster("a") {
		t.Errorf("requests for the same object in the same cluster compare unequal")
	}
}

func TestWithClusterGeneric(t *testing.T) {
	tests := []struct {
		name        string
		req         mcreconcile.WithCluster[string]
		wantString  string
		wantCluster multicluster.ClusterName
	}{
		{
			name:        "cluster",
			req:         mcreconcile.WithCluster[string]{Request: "key", ClusterName: "c"},
			wantString:  "cluster://c/key",
			wantCluster: "c",
		},
		{
			name:       "host cluster",
			req:        mcreconcile.WithCluster[string]{Request: "key"},
			wantString: "key",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.req.String(); got != tt.wantString {
				t.Errorf("String() = %q, want %q", got, tt.wantString)
			}
			if got := tt.req.Cluster(); got != tt.wantCluster {
				t.Errorf("Cluster() = %q, want %q", got, tt.wantCluster)
			}
			moved := tt.req.WithCluster("other")
			want := mcreconcile.WithCluster[string]{Request: tt.req.Request, ClusterName: "other"}
			if moved != want {
				t.Errorf("WithCluster(%q) = %#v, want %#v", "other", moved, want)
			}
			if tt.req.Cluster() != tt.wantCluster {
				t.Errorf("WithCluster modified the receiver")
			}
		})
	}
}

func TestWithClusterGenericStructRequest(t *testing.T) {
	type key struct{ ID int }
	req := mcreconcile.WithCluster[key]{Request: key{ID: 7}, ClusterName: "c"}
	if got, want := req.String(), "cluster://c/{7}"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
