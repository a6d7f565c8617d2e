// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package multi_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/multi"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fakeCluster is a cluster that is only ever compared by identity.
type fakeCluster struct {
	cluster.Cluster
	name string
}

// fakeProvider knows a fixed set of clusters, records the indexes it receives and, as a ProviderRunnable, engages
// its clusters on Start with the context engageCtx derives from the run context (the run context itself by
// default), then blocks until the run context ends or returns startErr at once.
type fakeProvider struct {
	clusters  map[multicluster.ClusterName]cluster.Cluster
	engageCtx func(run context.Context) context.Context
	startErr  error
	indexErr  error

	mu      sync.Mutex
	indexes []string
	engaged chan struct{}
	stopped chan struct{}
}

func newFakeProvider(names ...string) *fakeProvider {
	p := &fakeProvider{
		clusters: map[multicluster.ClusterName]cluster.Cluster{},
		engaged:  make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	for _, name := range names {
		p.clusters[multicluster.ClusterName(name)] = &fakeCluster{name: name}
	}
	return p
}

func (p *fakeProvider) Get(_ context.Context, name multicluster.ClusterName) (cluster.Cluster, error) {
	if cl, ok := p.clusters[name]; ok {
		return cl, nil
	}
	return nil, fmt.Errorf("cluster %q: %w", name, multicluster.ErrClusterNotFound)
}

func (p *fakeProvider) IndexField(_ context.Context, _ client.Object, field string, _ client.IndexerFunc) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if slices.Contains(p.indexes, field) {
		return fmt.Errorf("indexer conflict: %q", field)
	}
	p.indexes = append(p.indexes, field)
	return p.indexErr
}

func (p *fakeProvider) receivedIndexes() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.indexes)
}

func (p *fakeProvider) Start(ctx context.Context, aware multicluster.Aware) error {
	defer close(p.stopped)
	clusterCtx := ctx
	if p.engageCtx != nil {
		clusterCtx = p.engageCtx(ctx)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for name := range p.clusters {
			if !yield(name.String()) {
				return
			}
		}
	})
	for _, name := range names {
		if err := aware.Engage(clusterCtx, multicluster.ClusterName(name), p.clusters[multicluster.ClusterName(name)]); err != nil {
			return err
		}
	}
	close(p.engaged)
	if p.startErr != nil {
		return p.startErr
	}
	<-ctx.Done()
	return nil
}

// recordingAware records the clusters engaged with it and their contexts.
type recordingAware struct {
	mu       sync.Mutex
	contexts map[string][]context.Context
}

func newRecordingAware() *recordingAware {
	return &recordingAware{contexts: map[string][]context.Context{}}
}

func (a *recordingAware) Engage(ctx context.Context, name multicluster.ClusterName, _ cluster.Cluster) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.contexts[name.String()] = append(a.contexts[name.String()], ctx)
	return nil
}

// live returns the names of the clusters with a context that has not ended, sorted.
func (a *recordingAware) live() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var names []string
	for name, ctxs := range a.contexts {
		for _, ctx := range ctxs {
			if ctx.Err() == nil {
				names = append(names, name)
				break
			}
		}
	}
	slices.Sort(names)
	return names
}

func (a *recordingAware) contextsOf(name string) []context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.contexts[name])
}

// verifyNoLeaks checks, after everything else the test registered for cleanup, that the goroutines running now
// are all that remain.
func verifyNoLeaks(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

func TestAddProviderRejectsBadNamesAndDuplicates(t *testing.T) {
	p := multi.New(multi.Options{})
	if err := p.AddProvider("b", newFakeProvider()); err != nil {
		t.Fatal(err)
	}
	if err := p.AddProvider("a", newFakeProvider()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		provider multicluster.Provider
		want     string
	}{
		{"", newFakeProvider(), "must not be empty"},
		{"x#y", newFakeProvider(), `"x#y" must not contain the separator "#"`},
		{"a", newFakeProvider(), `already an inner provider named "a"`},
		{"c", nil, `"c" is nil`},
	} {
		err := p.AddProvider(tc.name, tc.provider)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AddProvider(%q): got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if got, want := p.ProviderNames(), []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("ProviderNames() = %v, want %v", got, want)
	}
	if _, ok := p.GetProvider("a"); !ok {
		t.Error(`GetProvider("a") found nothing`)
	}
	if _, ok := p.GetProvider("c"); ok {
		t.Error(`GetProvider("c") found a provider`)
	}

	custom := multi.New(multi.Options{Separator: "/"})
	if err := custom.AddProvider("x#y", newFakeProvider()); err != nil {
		t.Errorf("with separator /, x#y is a valid name: %v", err)
	}
	if err := custom.AddProvider("x/y", newFakeProvider()); err == nil {
		t.Error("with separator /, x/y was accepted")
	}

	// With a separator of several characters, a name that ends in the separator's beginning would make its
	// clusters' names split elsewhere: ":" + "::" + "c" is ":::c", which splits as "" and ":c".
	long := multi.New(multi.Options{Separator: "::"})
	if err := long.AddProvider(":", newFakeProvider()); err == nil ||
		!strings.Contains(err.Error(), "nor end in its beginning") {
		t.Errorf(`with separator ::, ":" was accepted or refused for another reason: %v`, err)
	}
	if err := long.AddProvider("a:b", newFakeProvider()); err != nil {
		t.Errorf("with separator ::, a:b is a valid name: %v", err)
	}
}

func TestGetRoutesByPrefix(t *testing.T) {
	a, b := newFakeProvider("one", "two#three"), newFakeProvider("one")
	p := multi.New(multi.Options{})
	for name, inner := range map[string]*fakeProvider{"a": a, "b": b} {
		if err := p.AddProvider(name, inner); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		want cluster.Cluster
	}{
		{"a#one", a.clusters["one"]},
		{"b#one", b.clusters["one"]},
		{"a#two#three", a.clusters["two#three"]}, // split at the first separator
	} {
		got, err := p.Get(t.Context(), multicluster.ClusterName(tc.name))
		if err != nil || got != tc.want {
			t.Errorf("Get(%q) = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	for _, name := range []string{"c#one", "one", "", "#one", "a#", "a#three", "b#two#three"} {
		_, err := p.Get(t.Context(), multicluster.ClusterName(name))
		if !errors.Is(err, multicluster.ErrClusterNotFound) {
			t.Errorf("Get(%q): got %v, want ErrClusterNotFound", name, err)
			continue
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("%q", name)) {
			t.Errorf("Get(%q): error %q does not name the cluster", name, err)
		}
	}

	p.RemoveProvider("a")
	if _, err := p.Get(t.Context(), "a#one"); !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Errorf("Get after RemoveProvider: got %v, want ErrClusterNotFound", err)
	}
}

// Each inner provider receives each index exactly once, whether the index was recorded before or after the
// provider was added, and however IndexField and AddProvider calls interleave.
func TestIndexFieldReachesEveryProviderOnce(t *testing.T) {
	p := multi.New(multi.Options{})
	a := newFakeProvider()
	if err := p.AddProvider("a", a); err != nil {
		t.Fatal(err)
	}
	if err := p.IndexField(t.Context(), nil, "i0", nil); err != nil {
		t.Fatal(err)
	}
	b := newFakeProvider()
	if err := p.AddProvider("b", b); err != nil {
		t.Fatal(err)
	}
	if err := p.IndexField(t.Context(), nil, "i1", nil); err != nil {
		t.Fatal(err)
	}
	for name, inner := range map[string]*fakeProvider{"a": a, "b": b} {
		if got, want := inner.receivedIndexes(), []string{"i0", "i1"}; !slices.Equal(got, want) {
			t.Errorf("provider %s received %v, want %v", name, got, want)
		}
	}

	// Concurrently: 20 providers added while 20 indexes are registered. The fake fails on a second registration of
	// the same index, like a cache's "indexer conflict".
	const n = 20
	inners := make([]*fakeProvider, n)
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		inners[i] = newFakeProvider()
		wg.Add(2)
		go func() {
			defer wg.Done()
			errs <- p.AddProvider(fmt.Sprintf("p%d", i), inners[i])
		}()
		go func() {
			defer wg.Done()
			errs <- p.IndexField(t.Context(), nil, fmt.Sprintf("c%d", i), nil)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	for i, inner := range slices.Concat(inners, []*fakeProvider{a, b}) {
		got := inner.receivedIndexes()
		if len(got) != n+2 {
			t.Errorf("provider %d received %d indexes, want %d: %v", i, len(got), n+2, got)
		}
	}
}

func TestIndexFieldErrorsNameTheProvider(t *testing.T) {
	p := multi.New(multi.Options{})
	bad := newFakeProvider()
	bad.indexErr = errors.New("boom")
	if err := p.AddProvider("good", newFakeProvider()); err != nil {
		t.Fatal(err)
	}
	if err := p.AddProvider("bad", bad); err != nil {
		t.Fatal(err)
	}
	err := p.IndexField(t.Context(), nil, "field", nil)
	if err == nil || !strings.Contains(err.Error(), `inner provider "bad"`) || strings.Contains(err.Error(), `"good"`) {
		t.Fatalf("got %v, want an error naming the failing provider only", err)
	}

	// A provider that fails to take a recorded index is not added.
	late := newFakeProvider()
	late.indexErr = errors.New("boom")
	if err := p.AddProvider("late", late); err == nil || !strings.Contains(err.Error(), `"late"`) {
		t.Fatalf("AddProvider: got %v, want an error naming the provider", err)
	}
	if _, ok := p.GetProvider("late"); ok {
		t.Error("the provider that failed to take an index was added")
	}
}

// Clusters are engaged under prefixed names; removing a provider ends the contexts of all its clusters before
// RemoveProvider returns, even when the provider engaged them with contexts unrelated to the one it was started
// with, and waits for its Start to return.
func TestRemoveProviderDisengagesAllItsClusters(t *testing.T) {
	verifyNoLeaks(t)

	a := newFakeProvider("x", "y")
	// The provider ignores its run context for its clusters.
	a.engageCtx = context.WithoutCancel
	b := newFakeProvider("x")

	p := multi.New(multi.Options{})
	if err := p.AddProvider("a", a); err != nil {
		t.Fatal(err)
	}
	aware := newRecordingAware()
	stop := harness.StartProvider(t, p, aware)
	<-a.engaged
	if err := p.AddProvider("b", b); err != nil { // added while running: started at once
		t.Fatal(err)
	}
	<-b.engaged
	if got, want := aware.live(), []string{"a#x", "a#y", "b#x"}; !slices.Equal(got, want) {
		t.Fatalf("live clusters %v, want %v", got, want)
	}
	if got, want := p.ClusterNames(), []multicluster.ClusterName{"a#x", "a#y", "b#x"}; !slices.Equal(got, want) {
		t.Errorf("ClusterNames() = %v, want %v", got, want)
	}

	p.RemoveProvider("a")
	select {
	case <-a.stopped:
	default:
		t.Error("RemoveProvider returned before the provider's Start")
	}
	if got, want := aware.live(), []string{"b#x"}; !slices.Equal(got, want) {
		t.Errorf("after RemoveProvider: live clusters %v, want %v", got, want)
	}
	if got, want := p.ClusterNames(), []multicluster.ClusterName{"b#x"}; !slices.Equal(got, want) {
		t.Errorf("after RemoveProvider: ClusterNames() = %v, want %v", got, want)
	}

	stop()
	if got := aware.live(); len(got) != 0 {
		t.Errorf("after Start returned: live clusters %v", got)
	}
	select {
	case <-b.stopped:
	default:
		t.Error("Start returned before the inner provider's Start")
	}
}

// Engaging the same instance again with the same context is passed on with the same context, so it remains a
// no-op downstream; a cluster engaged with an ended context never reaches downstream alive.
func TestEngageSameInstanceReusesTheEngagement(t *testing.T) {
	verifyNoLeaks(t)

	cl := &fakeCluster{name: "x"}
	engaged := make(chan multicluster.Aware, 1)
	inner := &runnableFunc{start: func(ctx context.Context, aware multicluster.Aware) error {
		engaged <- aware
		<-ctx.Done()
		return nil
	}}
	p := multi.New(multi.Options{Separator: "/"})
	if err := p.AddProvider("in", inner); err != nil {
		t.Fatal(err)
	}
	rec := newRecordingAware()
	harness.StartProvider(t, p, rec)
	aware := <-engaged

	ctx, cancel := context.WithCancel(t.Context())
	for range 2 {
		if err := aware.Engage(ctx, "x", cl); err != nil {
			t.Fatal(err)
		}
	}
	ctxs := rec.contextsOf("in/x")
	if len(ctxs) != 2 || ctxs[0] != ctxs[1] {
		t.Fatalf("downstream contexts %v, want the same context twice", ctxs)
	}
	cancel()
	<-ctxs[0].Done()
}

// An inner provider whose Start fails has its clusters disengaged; the others keep theirs.
func TestFailingInnerProviderLosesOnlyItsClusters(t *testing.T) {
	verifyNoLeaks(t)

	bad := newFakeProvider("x")
	bad.startErr = errors.New("discovery failed")
	good := newFakeProvider("x")
	p := multi.New(multi.Options{})
	for name, inner := range map[string]*fakeProvider{"bad": bad, "good": good} {
		if err := p.AddProvider(name, inner); err != nil {
			t.Fatal(err)
		}
	}
	aware := newRecordingAware()
	harness.StartProvider(t, p, aware)
	<-good.engaged
	<-bad.stopped
	for _, ctx := range aware.contextsOf("bad#x") {
		<-ctx.Done()
	}
	if got, want := aware.live(), []string{"good#x"}; !slices.Equal(got, want) {
		t.Errorf("live clusters %v, want %v", got, want)
	}
}

func TestStartTwiceFails(t *testing.T) {
	p := multi.New(multi.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := p.Start(ctx, newRecordingAware()); err != nil {
		t.Fatalf("first Start: %v", err)
	}
	err := p.Start(t.Context(), newRecordingAware())
	if err == nil || !strings.Contains(err.Error(), "already started") {
		t.Fatalf("second Start: got %v, want an error", err)
	}
	// A provider added after the composed provider stopped is not started.
	inner := newFakeProvider("x")
	if err := p.AddProvider("late", inner); err != nil {
		t.Fatal(err)
	}
	select {
	case <-inner.stopped:
		t.Error("an inner provider added after Start returned was started")
	default:
	}
}

// runnableFunc is a ProviderRunnable without clusters of its own.
type runnableFunc struct {
	start func(context.Context, multicluster.Aware) error
}

func (r *runnableFunc) Start(ctx context.Context, aware multicluster.Aware) error {
	return r.start(ctx, aware)
}

func (r *runnableFunc) Get(_ context.Context, name multicluster.ClusterName) (cluster.Cluster, error) {
	return nil, fmt.Errorf("cluster %q: %w", name, multicluster.ErrClusterNotFound)
}

func (r *runnableFunc) IndexField(context.Context, client.Object, string, client.IndexerFunc) error {
	return nil
}
