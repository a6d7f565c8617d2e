// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package manager_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// runnableProvider engages one cluster when it starts and counts its starts.
type runnableProvider struct {
	mapProvider
	starts atomic.Int32
	err    error
}

func (p *runnableProvider) Start(ctx context.Context, aware multicluster.Aware) error {
	p.starts.Add(1)
	for name, cl := range p.clusters {
		if err := aware.Engage(ctx, name, cl); err != nil {
			return err
		}
	}
	if p.err != nil {
		return p.err
	}
	<-ctx.Done()
	return ctx.Err()
}

func TestStartRunsTheProviderOnce(t *testing.T) {
	a := &fakeCluster{name: "a"}
	provider := &runnableProvider{mapProvider: mapProvider{clusters: map[multicluster.ClusterName]cluster.Cluster{"a": a}}}
	m, err := mcmanager.New(&rest.Config{Host: "http://127.0.0.1:1"}, provider,
		manager.Options{Metrics: metricsserver.Options{BindAddress: "0"}},
		mcmanager.WithProviderLeaderElection(false))
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	r := addRunnable(t, m)

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()

	if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
		return len(r.engagedNames()) == 1, nil
	}); err != nil {
		t.Fatalf("the provider's cluster never reached the runnable: %v", r.engagedNames())
	}
	expectCluster(t, m, "a", a, "the provider's cluster")

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Start() error = %v, want nil when stopped by its context", err)
		}
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("Start() did not return after its context ended")
	}
	if n := provider.starts.Load(); n != 1 {
		t.Errorf("provider started %d times, want once", n)
	}

	// A second Start does not add the provider again (controller-runtime refuses to start a manager twice).
	_ = m.Start(t.Context())
	if n := provider.starts.Load(); n != 1 {
		t.Errorf("provider started %d times after a second Start, want once", n)
	}
}

func TestStartReportsProviderFailure(t *testing.T) {
	provider := &runnableProvider{err: errors.New("discovery broke")}
	m, err := mcmanager.New(&rest.Config{Host: "http://127.0.0.1:1"}, provider,
		manager.Options{Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	err = m.Start(t.Context())
	if err == nil || !strings.Contains(err.Error(), "discovery broke") {
		t.Errorf("Start() error = %v, want the provider's error", err)
	}
}

// fakeIndexer records the fields it indexes.
type fakeIndexer struct {
	fields []string
	err    error
}

func (i *fakeIndexer) IndexField(_ context.Context, _ client.Object, field string, _ client.IndexerFunc) error {
	i.fields = append(i.fields, field)
	return i.err
}

// fakeHost is a host manager with a fake field indexer; other methods panic.
type fakeHost struct {
	manager.Manager
	indexer *fakeIndexer
}

func (h *fakeHost) GetFieldIndexer() client.FieldIndexer { return h.indexer }

func TestGetFieldIndexer(t *testing.T) {
	errHost, errFleet := errors.New("host broke"), errors.New("fleet broke")
	tests := []struct {
		name        string
		hostErr     error
		provider    *mapProvider
		wantHost    int
		wantFleet   int
		wantErr     error
		wantErrText string
	}{
		{name: "single-cluster mode", wantHost: 1},
		{name: "host and fleet", provider: &mapProvider{}, wantHost: 1, wantFleet: 1},
		{name: "host fails", hostErr: errHost, provider: &mapProvider{}, wantHost: 1, wantErr: errHost, wantErrText: "host cluster"},
		{name: "fleet fails", provider: &mapProvider{indexErr: errFleet}, wantHost: 1, wantFleet: 1, wantErr: errFleet, wantErrText: "fleet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host := &fakeHost{indexer: &fakeIndexer{err: tt.hostErr}}
			var provider multicluster.Provider
			if tt.provider != nil {
				provider = tt.provider
			}
			m, err := mcmanager.WithMultiCluster(host, provider)
			if err != nil {
				t.Fatal(err)
			}

			err = m.GetFieldIndexer().IndexField(t.Context(), nil, "spec.field", nil)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("IndexField() error = %v, want %v", err, tt.wantErr)
			}
			if err != nil && (!strings.Contains(err.Error(), tt.wantErrText) || !strings.Contains(err.Error(), "spec.field")) {
				t.Errorf("IndexField() error %q does not say where %q failed", err, "spec.field")
			}
			if got := len(host.indexer.fields); got != tt.wantHost {
				t.Errorf("host indexed %d times, want %d", got, tt.wantHost)
			}
			if tt.provider != nil {
				if got := len(tt.provider.indexed); got != tt.wantFleet {
					t.Errorf("fleet indexed %d times, want %d", got, tt.wantFleet)
				}
			}
		})
	}
}
