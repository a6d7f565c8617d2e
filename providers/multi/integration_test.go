// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package multi_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	clustersprovider "sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/providers/multi"
	"sigs.k8s.io/multicluster-runtime/providers/single"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// membersProvider returns a clusters provider of fresh clusters for the named members, under their names.
func membersProvider(t *testing.T, members ...string) *clustersprovider.Provider {
	t.Helper()
	p := clustersprovider.New()
	for _, member := range members {
		if err := p.Add(t.Context(), multicluster.ClusterName(member), harness.NewCluster(t, fleet, member)); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// withMember0 returns a composed provider with the inner provider "a" of membersProvider's cluster member-0.
func withMember0(t *testing.T) *multi.Provider {
	t.Helper()
	p := multi.New(multi.Options{})
	if err := p.AddProvider("a", membersProvider(t, "member-0")); err != nil {
		t.Fatal(err)
	}
	return p
}

// Two inner providers of different kinds (a clusters provider and a single provider) composed under prefixes: their
// clusters are engaged as <prefix>#<name> and one controller reconciles objects of both, reading each from the
// right member through mgr.GetCluster.
func TestComposedProvidersEngageUnderPrefixes(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "multi-compose", "member-0", "member-1")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "before")

	p := withMember0(t)
	if err := p.AddProvider("s", single.New("one", harness.NewCluster(t, fleet, "member-1"))); err != nil {
		t.Fatal(err)
	}
	mgr := newManager(t, p)
	rec := harness.RecordConfigMaps(t, mgr, harness.OfNamespace(ns))
	harness.StartManager(t, t.Context(), mgr)

	harness.CreateConfigMaps(t, fleet, ns, "after", "member-0", "member-1")
	for _, want := range []string{"a#member-0/before=member-0", "a#member-0/after=member-0", "s#one/after=member-1"} {
		harness.Eventually(t, shortTimeout, want, func() bool { return rec.Has(want) })
	}

	for name, member := range map[multicluster.ClusterName]string{"a#member-0": "member-0", "s#one": "member-1"} {
		cl, err := mgr.GetCluster(t.Context(), name)
		if err != nil {
			t.Fatalf("GetCluster(%q): %v", name, err)
		}
		if got, want := cl.GetConfig().Host, harness.Config(t, fleet, member).Host; got != want {
			t.Errorf("cluster %q reaches %s, want %s (%s)", name, got, want, member)
		}
	}
	for _, name := range []string{"member-0", "zzz#member-0", "a#member-1", "s#member-1", "a", "#member-0"} {
		if _, err := mgr.GetCluster(t.Context(), multicluster.ClusterName(name)); !errors.Is(err, multicluster.ErrClusterNotFound) {
			t.Errorf("GetCluster(%q): got %v, want ErrClusterNotFound", name, err)
		}
	}
}

// A provider added while the manager runs has its clusters engaged and reconciled (objects present before and
// created after); removing it disengages them: Get no longer finds them, objects changed afterwards are not
// reconciled, the provider stops the clusters, and the engage/remove cycle leaves no goroutine behind.
func TestAddAndRemoveProviderWhileRunning(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "multi-dynamic", "member-0", "member-1")
	harness.CreateConfigMap(t, fleet, "member-1", ns, "present")

	p := withMember0(t)
	mgr, rec, _ := harness.StartRecordingManager(t, fleet.Host(), p, nil)
	fence := 0
	// fenced creates an object in member-0 (which stays engaged) and waits for its reconcile, so that events sent
	// before it have been delivered.
	fenced := func() {
		t.Helper()
		fence++
		name := fmt.Sprintf("fence-%d", fence)
		harness.CreateConfigMap(t, fleet, "member-0", ns, name)
		harness.Eventually(t, shortTimeout, name, func() bool { return rec.Has("a#member-0/" + name + "=member-0") })
	}
	fenced()

	cycle := func(i int) (engaged, disengaged time.Duration) {
		t.Helper()
		name := fmt.Sprintf("late%d", i)
		cl := newObservedCluster(t, "member-1")
		inner := clustersprovider.New()
		if err := inner.Add(t.Context(), "member-1", cl); err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		if err := p.AddProvider(name, inner); err != nil {
			t.Fatal(err)
		}
		clusterName := name + "#member-1"
		harness.Eventually(t, shortTimeout, clusterName+" engaged", func() bool {
			_, err := mgr.GetCluster(t.Context(), multicluster.ClusterName(clusterName))
			return err == nil
		})
		engaged = time.Since(began)
		created := fmt.Sprintf("created-%d", i)
		harness.CreateConfigMap(t, fleet, "member-1", ns, created)
		for _, want := range []string{clusterName + "/present=member-1", clusterName + "/" + created + "=member-1"} {
			harness.Eventually(t, shortTimeout, want, func() bool { return rec.Has(want) })
		}

		began = time.Now()
		p.RemoveProvider(name) // the cluster's contexts end before it returns
		disengaged = time.Since(began)
		for _, get := range []func(context.Context, string) (any, error){
			func(ctx context.Context, n string) (any, error) {
				return mgr.GetCluster(ctx, multicluster.ClusterName(n))
			},
			func(ctx context.Context, n string) (any, error) { return p.Get(ctx, multicluster.ClusterName(n)) },
		} {
			if _, err := get(t.Context(), clusterName); !errors.Is(err, multicluster.ErrClusterNotFound) {
				t.Errorf("after RemoveProvider, getting %q: got %v, want ErrClusterNotFound", clusterName, err)
			}
		}
		cl.waitStopped(t)
		if slices.Contains(p.ProviderNames(), name) {
			t.Errorf("ProviderNames() = %v still lists %s", p.ProviderNames(), name)
		}

		gone := fmt.Sprintf("gone-%d", i)
		harness.CreateConfigMap(t, fleet, "member-1", ns, gone)
		fenced()
		harness.Consistently(t, quiet, clusterName+" not reconciled after removal", func() bool {
			return !rec.Has(clusterName + "/" + gone + "=member-1")
		})
		return engaged, disengaged
	}

	// A warm-up cycle lets client-go set up what it keeps for the process (transports, connections).
	engaged, disengaged := cycle(0)
	t.Logf("first cycle: AddProvider -> cluster engaged %s, RemoveProvider -> disengaged %s", engaged, disengaged)
	ignore := goleak.IgnoreCurrent()
	baseline := runtime.NumGoroutine()
	engaged, disengaged = cycle(1)
	t.Logf("second cycle: AddProvider -> cluster engaged %s, RemoveProvider -> disengaged %s", engaged, disengaged)

	if err := harness.EventuallyNoLeak(t, ignore); err != nil {
		t.Errorf("goroutines left after adding and removing a provider (baseline %d, now %d): %v",
			baseline, runtime.NumGoroutine(), err)
	}
}

// foreignProvider engages one member cluster with a context that does not derive from the context it is started
// with, as a provider that manages its clusters' lifetimes itself might.
type foreignProvider struct {
	name       multicluster.ClusterName
	cluster    *observedCluster
	clusterCtx context.Context
}

func (p *foreignProvider) Start(ctx context.Context, aware multicluster.Aware) error {
	clusterCtx := p.clusterCtx
	go func() { _ = p.cluster.Start(clusterCtx) }()
	if !p.cluster.GetCache().WaitForCacheSync(ctx) {
		return ctx.Err()
	}
	if err := aware.Engage(clusterCtx, p.name, p.cluster); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

func (p *foreignProvider) Get(_ context.Context, name multicluster.ClusterName) (cluster.Cluster, error) {
	if name == p.name {
		return p.cluster, nil
	}
	return nil, fmt.Errorf("cluster %q: %w", name, multicluster.ErrClusterNotFound)
}

func (p *foreignProvider) IndexField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	return p.cluster.GetFieldIndexer().IndexField(ctx, obj, field, extract)
}

// Removing a provider disengages its clusters even when it engaged them with contexts of its own, which do not end
// when its Start returns: the multi provider's Aware ties every engaged cluster to the inner provider's context.
func TestRemoveProviderDisengagesClustersWithForeignContexts(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "multi-foreign", "member-0", "member-1")

	p := multi.New(multi.Options{})
	if err := p.AddProvider("a", membersProvider(t, "member-0")); err != nil {
		t.Fatal(err)
	}
	clusterCtx, stopCluster := context.WithCancel(context.WithoutCancel(t.Context()))
	foreign := &foreignProvider{name: "own", cluster: newObservedCluster(t, "member-1"), clusterCtx: clusterCtx}
	if err := p.AddProvider("f", foreign); err != nil {
		t.Fatal(err)
	}
	mgr := newManager(t, p)
	rec := harness.RecordConfigMaps(t, mgr, harness.OfNamespace(ns))
	harness.StartManager(t, t.Context(), mgr)
	t.Cleanup(func() {
		stopCluster()
		foreign.cluster.waitStopped(t)
	})

	harness.CreateConfigMap(t, fleet, "member-1", ns, "one")
	harness.Eventually(t, shortTimeout, "f#own reconciled", func() bool { return rec.Has("f#own/one=member-1") })

	p.RemoveProvider("f")
	if _, err := mgr.GetCluster(t.Context(), "f#own"); !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Errorf("GetCluster after RemoveProvider: got %v, want ErrClusterNotFound", err)
	}
	harness.CreateConfigMap(t, fleet, "member-1", ns, "two")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "fence")
	harness.Eventually(t, shortTimeout, "fence reconciled", func() bool { return rec.Has("a#member-0/fence=member-0") })
	harness.Consistently(t, quiet, "f#own not reconciled after removal", func() bool { return !rec.Has("f#own/two=member-1") })
}

const (
	colorIndex = "multi.color"
	shapeIndex = "multi.shape"
)

func dataIndexer(key string) client.IndexerFunc {
	return func(o client.Object) []string {
		if v, ok := o.(*corev1.ConfigMap).Data[key]; ok {
			return []string{v}
		}
		return nil
	}
}

// checkIndexes lists by both indexes with the cluster's cache; each must find exactly its object.
func checkIndexes(ctx context.Context, mgr mcmanager.Manager, clusterName, ns string) error {
	cl, err := mgr.GetCluster(ctx, multicluster.ClusterName(clusterName))
	if err != nil {
		return err
	}
	for _, q := range []struct{ field, value, want string }{
		{colorIndex, "red", "red-circle"},
		{colorIndex, "blue", "blue-square"},
		{shapeIndex, "circle", "red-circle"},
		{shapeIndex, "square", "blue-square"},
	} {
		list := &corev1.ConfigMapList{}
		if err := cl.GetCache().List(ctx, list, client.InNamespace(ns), client.MatchingFields{q.field: q.value}); err != nil {
			return fmt.Errorf("cluster %q, %s=%s: %w", clusterName, q.field, q.value, err)
		}
		if len(list.Items) != 1 || list.Items[0].Name != q.want {
			return fmt.Errorf("cluster %q, %s=%s: got %d objects, want %s", clusterName, q.field, q.value, len(list.Items), q.want)
		}
	}
	return nil
}

// Field indexes registered through the manager before the manager starts and after clusters are engaged reach the
// clusters of every inner provider: those present at start, and those of providers added later (a clusters
// provider and a single provider, each of which registers indexes its own way), each exactly once, so that no
// "indexer conflict" occurs.
func TestIndexesReachProvidersAddedBeforeAndAfter(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "multi-index", "member-0", "member-1")
	for _, member := range []string{"member-0", "member-1"} {
		harness.CreateConfigMap(t, fleet, member, ns, "red-circle", "color", "red", "shape", "circle")
		harness.CreateConfigMap(t, fleet, member, ns, "blue-square", "color", "blue", "shape", "square")
	}

	p := multi.New(multi.Options{})
	if err := p.AddProvider("a", membersProvider(t, "member-0")); err != nil {
		t.Fatal(err)
	}
	mgr := newManager(t, p)
	if err := mgr.GetFieldIndexer().IndexField(t.Context(), &corev1.ConfigMap{}, colorIndex, dataIndexer("color")); err != nil {
		t.Fatalf("index before start: %v", err)
	}
	harness.StartManager(t, t.Context(), mgr)
	harness.Eventually(t, shortTimeout, "a#member-0 engaged", func() bool {
		_, err := mgr.GetCluster(t.Context(), "a#member-0")
		return err == nil
	})
	if err := mgr.GetFieldIndexer().IndexField(t.Context(), &corev1.ConfigMap{}, shapeIndex, dataIndexer("shape")); err != nil {
		t.Fatalf("index after engage: %v", err)
	}

	if err := p.AddProvider("b", membersProvider(t, "member-1")); err != nil {
		t.Fatalf("adding a clusters provider after both indexes: %v", err)
	}
	if err := p.AddProvider("s", single.New("one", harness.NewCluster(t, fleet, "member-1"))); err != nil {
		t.Fatalf("adding a single provider after both indexes: %v", err)
	}
	for _, name := range []string{"a#member-0", "b#member-1", "s#one"} {
		var last error
		harness.Eventually(t, shortTimeout, "both indexes on "+name, func() bool {
			last = checkIndexes(t.Context(), mgr, name, ns)
			return last == nil
		})
		if last != nil && strings.Contains(last.Error(), "conflict") {
			t.Errorf("cluster %s: %v", name, last)
		}
	}
}
