// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package manager_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mccontext "sigs.k8s.io/multicluster-runtime/pkg/context"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// newHostManager returns a controller-runtime manager of an unreachable host. Creating (not starting) it needs
// no API server: controller-runtime v0.22's REST mapper is lazy.
func newHostManager(t *testing.T) manager.Manager {
	t.Helper()
	mgr, err := manager.New(&rest.Config{Host: "http://127.0.0.1:1"}, manager.Options{
		Metrics: metricsserver.Options{BindAddress: "0"},
	})
	if err != nil {
		t.Fatalf("creating the host manager: %v", err)
	}
	return mgr
}

func newManager(t *testing.T, provider multicluster.Provider) mcmanager.Manager {
	t.Helper()
	m, err := mcmanager.WithMultiCluster(newHostManager(t), provider)
	if err != nil {
		t.Fatalf("WithMultiCluster() error = %v", err)
	}
	return m
}

// fakeCluster is a cluster.Cluster with a name and a config; other methods panic.
type fakeCluster struct {
	cluster.Cluster
	name string
}

func (c *fakeCluster) GetConfig() *rest.Config { return &rest.Config{Host: "https://" + c.name} }

func (c *fakeCluster) String() string { return c.name }

// engagement is one call of Engage.
type engagement struct {
	ctx     context.Context
	name    multicluster.ClusterName
	cluster cluster.Cluster
}

// fakeRunnable is a cluster-aware runnable that records its engagements.
// expectCluster fails the test unless m's GetCluster returns want for name; what describes want.
func expectCluster(t *testing.T, m mcmanager.Manager, name multicluster.ClusterName, want cluster.Cluster, what string) {
	t.Helper()
	if cl, err := m.GetCluster(t.Context(), name); err != nil || cl != want {
		t.Errorf("GetCluster(%s) = (%v, %v), want %s", name, cl, err, what)
	}
}

// addRunnable adds a new fakeRunnable to m or fails the test.
func addRunnable(t *testing.T, m mcmanager.Manager) *fakeRunnable {
	t.Helper()
	r := &fakeRunnable{}
	if err := m.Add(r); err != nil {
		t.Fatal(err)
	}
	return r
}

type fakeRunnable struct {
	mu      sync.Mutex
	engaged []engagement
	err     error
}

func (r *fakeRunnable) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (r *fakeRunnable) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.engaged = append(r.engaged, engagement{ctx: ctx, name: name, cluster: cl})
	return r.err
}

func (r *fakeRunnable) engagements() []engagement {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]engagement(nil), r.engaged...)
}

// engagedNames lists the names r was engaged with, in order.
func (r *fakeRunnable) engagedNames() []multicluster.ClusterName {
	engagements := r.engagements()
	names := make([]multicluster.ClusterName, 0, len(engagements))
	for _, e := range engagements {
		names = append(names, e.name)
	}
	return names
}

// mapProvider serves clusters from a map and records IndexField calls.
type mapProvider struct {
	clusters map[multicluster.ClusterName]cluster.Cluster
	indexed  []string
	indexErr error
}

func (p *mapProvider) Get(_ context.Context, name multicluster.ClusterName) (cluster.Cluster, error) {
	if cl, ok := p.clusters[name]; ok {
		return cl, nil
	}
	return nil, fmt.Errorf("cluster %q: %w", name, multicluster.ErrClusterNotFound)
}

func (p *mapProvider) IndexField(_ context.Context, _ client.Object, field string, _ client.IndexerFunc) error {
	p.indexed = append(p.indexed, field)
	return p.indexErr
}

func TestGetClusterLocal(t *testing.T) {
	for _, provider := range []multicluster.Provider{nil, &mapProvider{}} {
		t.Run(fmt.Sprintf("provider=%T", provider), func(t *testing.T) {
			m := newManager(t, provider)
			cl, err := m.GetCluster(t.Context(), mcmanager.LocalCluster)
			if err != nil {
				t.Fatalf("GetCluster(LocalCluster) error = %v", err)
			}
			if cl != m.GetLocalManager() {
				t.Errorf("GetCluster(LocalCluster) = %v, want the host manager", cl)
			}
		})
	}
}

func TestGetClusterUnknown(t *testing.T) {
	known := &fakeCluster{name: "known"}
	tests := []struct {
		name     string
		provider multicluster.Provider
	}{
		{name: "nil provider", provider: nil},
		{name: "provider", provider: &mapProvider{clusters: map[multicluster.ClusterName]cluster.Cluster{"known": known}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newManager(t, tt.provider)
			_, err := m.GetCluster(t.Context(), "unknown")
			if !errors.Is(err, multicluster.ErrClusterNotFound) {
				t.Fatalf("GetCluster(unknown) error = %v, want ErrClusterNotFound", err)
			}
			if !strings.Contains(err.Error(), `"unknown"`) {
				t.Errorf("GetCluster(unknown) error %q does not name the cluster", err)
			}
		})
	}
}

func TestGetClusterAsksTheProvider(t *testing.T) {
	known := &fakeCluster{name: "known"}
	m := newManager(t, &mapProvider{clusters: map[multicluster.ClusterName]cluster.Cluster{"known": known}})
	cl, err := m.GetCluster(t.Context(), "known")
	if err != nil || cl != known {
		t.Errorf("GetCluster(known) = (%v, %v), want the provider's cluster", cl, err)
	}
}

func TestEngageRejects(t *testing.T) {
	tests := []struct {
		name        string
		clusterName multicluster.ClusterName
		cluster     cluster.Cluster
		wantErr     string
	}{
		{name: "empty name", clusterName: "", cluster: &fakeCluster{name: "a"}, wantErr: "empty name"},
		{name: "nil cluster", clusterName: "a", cluster: nil, wantErr: `cluster "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newManager(t, nil)
			r := addRunnable(t, m)
			err := m.Engage(t.Context(), tt.clusterName, tt.cluster)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Engage() error = %v, want one containing %q", err, tt.wantErr)
			}
			if got := r.engagedNames(); len(got) != 0 {
				t.Errorf("runnable engaged with %q", got)
			}
			if cl, err := m.GetCluster(t.Context(), tt.clusterName); tt.clusterName != "" && err == nil {
				t.Errorf("GetCluster(%q) = %v after a rejected Engage", tt.clusterName, cl)
			}
		})
	}
}

func TestEngageWithCancelledContextIsNoOp(t *testing.T) {
	m := newManager(t, nil)
	r := addRunnable(t, m)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()

	if err := m.Engage(ctx, "a", &fakeCluster{name: "a"}); err != nil {
		t.Fatalf("Engage() error = %v", err)
	}
	if got := r.engagedNames(); len(got) != 0 {
		t.Errorf("runnable engaged with %q", got)
	}
	if _, err := m.GetCluster(t.Context(), "a"); !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Errorf("GetCluster(a) error = %v, want ErrClusterNotFound", err)
	}
}

func TestEngageFansOut(t *testing.T) {
	m := newManager(t, nil)
	r1, r2 := &fakeRunnable{}, &fakeRunnable{}
	for _, r := range []*fakeRunnable{r1, r2} {
		if err := m.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	a := &fakeCluster{name: "a"}
	ctx := t.Context()

	if err := m.Engage(ctx, "a", a); err != nil {
		t.Fatalf("Engage() error = %v", err)
	}
	for i, r := range []*fakeRunnable{r1, r2} {
		got := r.engagements()
		if len(got) != 1 || got[0].name != "a" || got[0].cluster != a || got[0].ctx != ctx {
			t.Errorf("runnable %d engagements = %+v, want a once with the engagement context", i, got)
		}
	}
	expectCluster(t, m, "a", a, "the engaged cluster")
}

func TestEngageSameInstanceTwice(t *testing.T) {
	m := newManager(t, nil)
	r := addRunnable(t, m)
	a := &fakeCluster{name: "a"}

	for range 3 {
		if err := m.Engage(t.Context(), "a", a); err != nil {
			t.Fatalf("Engage() error = %v", err)
		}
	}
	if got := r.engagedNames(); len(got) != 1 {
		t.Errorf("runnable engaged %d times (%q), want once", len(got), got)
	}
}

func TestEngageReplacement(t *testing.T) {
	m := newManager(t, nil)
	r := addRunnable(t, m)
	first, second := &fakeCluster{name: "a-1"}, &fakeCluster{name: "a-2"}

	ctx1, cancel1 := context.WithCancel(t.Context())
	defer cancel1()
	if err := m.Engage(ctx1, "a", first); err != nil {
		t.Fatal(err)
	}
	if err := m.Engage(t.Context(), "a", second); err != nil {
		t.Fatal(err)
	}

	got := r.engagements()
	if len(got) != 2 || got[0].cluster != first || got[1].cluster != second {
		t.Fatalf("engagements = %+v, want the first then the second instance", got)
	}
	expectCluster(t, m, "a", second, "the replacement")

	// The first engagement ending must not remove its replacement.
	cancel1()
	expectCluster(t, m, "a", second, "the replacement after the replaced engagement ended")
}

func TestEngageAgainAfterContextEnds(t *testing.T) {
	m := newManager(t, nil)
	r := addRunnable(t, m)
	a := &fakeCluster{name: "a"}

	ctx, cancel := context.WithCancel(t.Context())
	if err := m.Engage(ctx, "a", a); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := m.Engage(t.Context(), "a", a); err != nil {
		t.Fatal(err)
	}
	if got := r.engagedNames(); len(got) != 2 {
		t.Errorf("runnable engaged %d times, want twice: the first engagement had ended", len(got))
	}
	expectCluster(t, m, "a", a, "the re-engaged cluster")
}

func TestDisengagedClusterFallsBackToTheProvider(t *testing.T) {
	fromProvider := &fakeCluster{name: "from-provider"}
	m := newManager(t, &mapProvider{clusters: map[multicluster.ClusterName]cluster.Cluster{"a": fromProvider}})
	engaged := &fakeCluster{name: "engaged"}

	ctx, cancel := context.WithCancel(t.Context())
	if err := m.Engage(ctx, "a", engaged); err != nil {
		t.Fatal(err)
	}
	if err := m.Engage(t.Context(), "b", &fakeCluster{name: "b"}); err != nil {
		t.Fatal(err)
	}
	if cl, _ := m.GetCluster(t.Context(), "a"); cl != engaged {
		t.Fatalf("GetCluster(a) = %v, want the engaged cluster", cl)
	}

	cancel()
	if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, wait.ForeverTestTimeout, true, func(ctx context.Context) (bool, error) {
		cl, err := m.GetCluster(ctx, "a")
		return err == nil && cl == fromProvider, nil
	}); err != nil {
		cl, err := m.GetCluster(t.Context(), "a")
		t.Fatalf("GetCluster(a) after disengagement = (%v, %v), want the provider's cluster", cl, err)
	}

	// Disengaging is per cluster; the unknown name b comes back ErrClusterNotFound once b goes too.
	if _, err := m.GetCluster(t.Context(), "b"); err != nil {
		t.Errorf("GetCluster(b) error = %v, want the still engaged cluster", err)
	}
}

func TestDisengagedClusterWithoutProvider(t *testing.T) {
	m := newManager(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	if err := m.Engage(ctx, "a", &fakeCluster{name: "a"}); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, wait.ForeverTestTimeout, true, func(ctx context.Context) (bool, error) {
		_, err := m.GetCluster(ctx, "a")
		return errors.Is(err, multicluster.ErrClusterNotFound), nil
	}); err != nil {
		t.Fatal("GetCluster(a) kept returning the cluster after its context ended")
	}
}

func TestRunnableAddedLaterIsEngagedWithLiveClusters(t *testing.T) {
	m := newManager(t, nil)
	a, b, gone := &fakeCluster{name: "a"}, &fakeCluster{name: "b"}, &fakeCluster{name: "gone"}
	ctxA := t.Context()
	if err := m.Engage(ctxA, "a", a); err != nil {
		t.Fatal(err)
	}
	if err := m.Engage(t.Context(), "b", b); err != nil {
		t.Fatal(err)
	}
	goneCtx, cancel := context.WithCancel(t.Context())
	if err := m.Engage(goneCtx, "gone", gone); err != nil {
		t.Fatal(err)
	}
	cancel()

	r := addRunnable(t, m)

	got := map[string]engagement{}
	for _, e := range r.engagements() {
		if _, dup := got[e.name.String()]; dup {
			t.Errorf("cluster %q replayed twice", e.name)
		}
		got[e.name.String()] = e
	}
	if len(got) != 2 || got["a"].cluster != a || got["b"].cluster != b {
		t.Errorf("replayed %v, want a and b", r.engagedNames())
	}
	if got["a"].ctx != ctxA {
		t.Error("replayed engagement of a does not carry a's context")
	}

	// Later engagements reach it as well.
	c := &fakeCluster{name: "c"}
	if err := m.Engage(t.Context(), "c", c); err != nil {
		t.Fatal(err)
	}
	if names := r.engagedNames(); len(names) != 3 || names[2] != "c" {
		t.Errorf("engagements after Engage(c) = %q, want c last", names)
	}
}

func TestEngageErrors(t *testing.T) {
	m := newManager(t, nil)
	failing := &fakeRunnable{err: errors.New("boom")}
	ok := &fakeRunnable{}
	for _, r := range []*fakeRunnable{failing, ok} {
		if err := m.Add(r); err != nil {
			t.Fatal(err)
		}
	}

	err := m.Engage(t.Context(), "a", &fakeCluster{name: "a"})
	if err == nil || !strings.Contains(err.Error(), `"a"`) || !strings.Contains(err.Error(), "boom") {
		t.Errorf("Engage() error = %v, want one naming the cluster and the cause", err)
	}
	if got := ok.engagedNames(); len(got) != 1 {
		t.Errorf("healthy runnable engaged %d times, want once despite the other failing", len(got))
	}

	late := &fakeRunnable{err: errors.New("late boom")}
	if err := m.Add(late); err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("Add() error = %v, want the replay error naming the cluster", err)
	}
}

func TestClusterFromContext(t *testing.T) {
	a := &fakeCluster{name: "a"}
	m := newManager(t, nil)
	if err := m.Engage(t.Context(), "a", a); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		ctx     context.Context
		want    cluster.Cluster
		wantErr error
	}{
		{name: "no cluster", ctx: t.Context(), wantErr: mcmanager.ErrNoClusterInContext},
		{name: "engaged cluster", ctx: mccontext.WithCluster(t.Context(), "a"), want: a},
		{name: "host cluster", ctx: mccontext.WithCluster(t.Context(), ""), want: m.GetLocalManager()},
		{name: "unknown cluster", ctx: mccontext.WithCluster(t.Context(), "unknown"), wantErr: multicluster.ErrClusterNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := m.ClusterFromContext(tt.ctx)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ClusterFromContext() error = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ClusterFromContext() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestGetManager(t *testing.T) {
	a := &fakeCluster{name: "a"}
	m := newManager(t, nil)
	if err := m.Engage(t.Context(), "a", a); err != nil {
		t.Fatal(err)
	}

	host, err := m.GetManager(t.Context(), mcmanager.LocalCluster)
	if err != nil || host != m.GetLocalManager() {
		t.Errorf("GetManager(LocalCluster) = (%v, %v), want the host manager", host, err)
	}

	scoped, err := m.GetManager(t.Context(), "a")
	if err != nil {
		t.Fatalf("GetManager(a) error = %v", err)
	}
	if got := scoped.GetConfig().Host; got != "https://a" {
		t.Errorf("scoped manager's config host = %q, want the cluster's", got)
	}
	if scoped.GetWebhookServer() != m.GetWebhookServer() {
		t.Error("scoped manager does not share the host's webhook server")
	}
	if scoped.GetLogger() != m.GetLogger() {
		t.Error("scoped manager does not share the host's logger")
	}
	if err := scoped.Start(t.Context()); err == nil {
		t.Error("a scoped manager started")
	}

	if _, err := m.GetManager(t.Context(), "unknown"); !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Errorf("GetManager(unknown) error = %v, want ErrClusterNotFound", err)
	}
}

func TestGetProvider(t *testing.T) {
	if p := newManager(t, nil).GetProvider(); p != nil {
		t.Errorf("GetProvider() = %v, want nil", p)
	}
	provider := &mapProvider{}
	if p := newManager(t, provider).GetProvider(); p != provider {
		t.Errorf("GetProvider() = %v, want %v", p, provider)
	}
}

func TestGetManagerIsScopedToTheCluster(t *testing.T) {
	cl, err := cluster.New(&rest.Config{Host: "http://127.0.0.1:2"})
	if err != nil {
		t.Fatalf("creating a cluster: %v", err)
	}
	m := newManager(t, nil)
	if err := m.Engage(t.Context(), "a", cl); err != nil {
		t.Fatal(err)
	}
	scoped, err := m.GetManager(t.Context(), "a")
	if err != nil {
		t.Fatalf("GetManager(a) error = %v", err)
	}

	checks := []struct {
		name       string
		got, want  any
		hostsValue any
	}{
		{"GetConfig", scoped.GetConfig(), cl.GetConfig(), m.GetLocalManager().GetConfig()},
		{"GetHTTPClient", scoped.GetHTTPClient(), cl.GetHTTPClient(), m.GetLocalManager().GetHTTPClient()},
		{"GetCache", scoped.GetCache(), cl.GetCache(), m.GetLocalManager().GetCache()},
		{"GetClient", scoped.GetClient(), cl.GetClient(), m.GetLocalManager().GetClient()},
		{"GetFieldIndexer", scoped.GetFieldIndexer(), cl.GetFieldIndexer(), m.GetLocalManager().GetFieldIndexer()},
		{"GetRESTMapper", scoped.GetRESTMapper(), cl.GetRESTMapper(), m.GetLocalManager().GetRESTMapper()},
		{"GetAPIReader", scoped.GetAPIReader(), cl.GetAPIReader(), m.GetLocalManager().GetAPIReader()},
		// Both use client-go's default scheme: equal to the host's too, so only check it is the cluster's.
		{"GetScheme", scoped.GetScheme(), cl.GetScheme(), nil},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s() of the scoped manager is not the cluster's", c.name)
		}
		if c.hostsValue != nil && c.got == c.hostsValue {
			t.Errorf("%s() of the scoped manager is the host's", c.name)
		}
	}
	if scoped.GetEventRecorderFor("test") == nil { //nolint:staticcheck // the deprecated recorder is still offered
		t.Error("GetEventRecorderFor() of the scoped manager is nil")
	}
	if scoped.GetEventRecorder("test") == nil {
		t.Error("GetEventRecorder() of the scoped manager is nil")
	}
}
