// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package multicluster_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// provider is a Provider without clusters.
type provider struct{}

func (provider) Get(_ context.Context, name multicluster.ClusterName) (cluster.Cluster, error) {
	return nil, fmt.Errorf("cluster %q: %w", name, multicluster.ErrClusterNotFound)
}

func (provider) IndexField(context.Context, client.Object, string, client.IndexerFunc) error {
	return nil
}

// hostOnlyProvider declares whether it is host-only.
type hostOnlyProvider struct {
	provider
	hostOnly bool
}

func (p hostOnlyProvider) HostOnly() bool { return p.hostOnly }

func TestIsHostOnly(t *testing.T) {
	tests := []struct {
		name     string
		provider multicluster.Provider
		want     bool
	}{
		{name: "nil", provider: nil, want: true},
		{name: "provider", provider: provider{}, want: false},
		{name: "declares host-only", provider: hostOnlyProvider{hostOnly: true}, want: true},
		{name: "declares not host-only", provider: hostOnlyProvider{hostOnly: false}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := multicluster.IsHostOnly(tt.provider); got != tt.want {
				t.Errorf("IsHostOnly() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestErrClusterNotFoundWrapped(t *testing.T) {
	_, err := provider{}.Get(t.Context(), "a")
	if !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Errorf("errors.Is(%v, ErrClusterNotFound) = false", err)
	}
	if errors.Is(errors.New("cluster not found"), multicluster.ErrClusterNotFound) {
		t.Error("an error with the same text matches ErrClusterNotFound")
	}
}
