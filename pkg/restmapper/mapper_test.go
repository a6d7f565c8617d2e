// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package restmapper_test

import (
	"errors"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	clientrestmapper "k8s.io/client-go/restmapper"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/restmapper"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// newMapper returns a RESTMapper of pool for the API server of cfg.
func newMapper(t *testing.T, pool *restmapper.Pool, cfg *rest.Config) meta.RESTMapper {
	t.Helper()
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := pool.NewMapper(cfg, httpClient)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// wholeDiscovery returns client-go's RESTMapper of every API group the API server of cfg serves.
func wholeDiscovery(t *testing.T, cfg *rest.Config) meta.RESTMapper {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := clientrestmapper.GetAPIGroupResources(dc)
	if err != nil {
		t.Fatal(err)
	}
	return clientrestmapper.NewDiscoveryRESTMapper(groups)
}

// Every kind the API server serves maps as with controller-runtime's own RESTMapper: same resource, kind and scope,
// and the same answer for partial resources.
func TestMapsLikeControllerRuntime(t *testing.T) {
	cfg := config(t, "member-2")
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		t.Fatal(err)
	}
	ours := newMapper(t, restmapper.NewPool(), cfg)

	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil {
		t.Fatal(err)
	}
	full := wholeDiscovery(t, cfg)
	checked := 0
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.APIResources {
			gk := schema.GroupKind{Group: gv.Group, Kind: r.Kind}
			want, wantErr := theirs.RESTMapping(gk)
			got, gotErr := ours.RESTMapping(gk)
			if (wantErr == nil) != (gotErr == nil) {
				t.Errorf("RESTMapping(%s): controller-runtime's error %v, ours %v", gk, wantErr, gotErr)
				continue
			}
			if wantErr == nil && (want.Resource != got.Resource || want.GroupVersionKind != got.GroupVersionKind || want.Scope.Name() != got.Scope.Name()) {
				t.Errorf("RESTMapping(%s): controller-runtime's %v %v %s, ours %v %v %s", gk,
					want.Resource, want.GroupVersionKind, want.Scope.Name(), got.Resource, got.GroupVersionKind, got.Scope.Name())
			}
			partial := schema.GroupVersionResource{Group: gv.Group, Resource: r.Name}
			wantKind, wantErr := theirs.KindFor(partial)
			gotKind, gotErr := ours.KindFor(partial)
			if wantKind != gotKind || (wantErr == nil) != (gotErr == nil) {
				t.Errorf("KindFor(%v): controller-runtime's %v (%v), ours %v (%v)", partial, wantKind, wantErr, gotKind, gotErr)
			}
			// A resource without a group may match in any group: ours looks in both parts together and answers as
			// a RESTMapper of the whole discovery does. (controller-runtime's answers from the groups it has
			// loaded so far.)
			partial = schema.GroupVersionResource{Resource: r.Name}
			wantKind, wantErr = full.KindFor(partial)
			gotKind, gotErr = ours.KindFor(partial)
			if wantKind != gotKind || (wantErr == nil) != (gotErr == nil) {
				t.Errorf("KindFor(%v): the whole discovery's %v (%v), ours %v (%v)", partial, wantKind, wantErr, gotKind, gotErr)
			}
			checked++
		}
	}
	if checked < 40 {
		t.Fatalf("checked only %d kinds", checked)
	}

	for _, gk := range []schema.GroupKind{{Group: "no.such.group", Kind: "Thing"}, {Group: "apps", Kind: "NoSuchKind"}} {
		_, wantErr := theirs.RESTMapping(gk)
		_, gotErr := ours.RESTMapping(gk)
		if !meta.IsNoMatchError(wantErr) || !meta.IsNoMatchError(gotErr) {
			t.Errorf("RESTMapping(%s): want no-match errors, controller-runtime's %v, ours %v", gk, wantErr, gotErr)
		}
	}
	if _, err := ours.RESTMapping(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "v2"); !meta.IsNoMatchError(err) {
		t.Errorf("RESTMapping of a version the server does not serve: want a no-match error, got %v", err)
	}
}

// Clusters of API servers that serve the same APIs share one group; building a cluster's RESTMapper makes no
// request, and neither does a lookup once the cluster has its group.
func TestIdenticalClustersShareOneGroup(t *testing.T) {
	pool := restmapper.NewPool()
	names := append(append([]string(nil), pristine...), pristine...)
	faults := make([]*discoveryFault, 0, len(names))
	mappers := make([]meta.RESTMapper, 0, len(names))
	for _, name := range names {
		f := &discoveryFault{}
		faults = append(faults, f)
		mappers = append(mappers, newMapper(t, pool, f.wrap(config(t, name))))
	}
	for i, f := range faults {
		if n := f.served.Load(); n != 0 {
			t.Errorf("mapper %d made %d discovery requests before its first lookup", i, n)
		}
	}
	for i, m := range mappers {
		if _, err := m.RESTMapping(schema.GroupKind{Kind: "ConfigMap"}, "v1"); err != nil {
			t.Fatalf("mapper %d: %v", i, err)
		}
		if _, err := m.RESTMapping(schema.GroupKind{Group: "apps", Kind: "Deployment"}); err != nil {
			t.Fatalf("mapper %d: %v", i, err)
		}
	}
	for i, f := range faults {
		if n := f.served.Load(); n != 2 {
			t.Errorf("mapper %d made %d discovery requests, want 2 (/api for ConfigMap and /apis for Deployment, once)", i, n)
		}
		// The first cluster downloads the documents; the others ask whether they serve the same and are told so.
		if want := int64(min(i, 1) * 2); f.notModified.Load() != want {
			t.Errorf("mapper %d was answered 304 Not Modified %d times, want %d", i, f.notModified.Load(), want)
		}
	}
	if n := pool.Groups(); n != 2 {
		t.Errorf("%d clusters of API servers serving the same APIs hold %d discovery documents, want 2 (/api and /apis)", len(mappers), n)
	}

	// A lookup that misses rediscovers the part of the cluster it looked in, with a conditional request: the
	// unchanged document is not sent.
	before, served := faults[0].notModified.Load(), faults[0].served.Load()
	if _, err := mappers[0].RESTMapping(schema.GroupKind{Group: "no.such.group", Kind: "Thing"}); !meta.IsNoMatchError(err) {
		t.Fatalf("want a no-match error, got %v", err)
	}
	if n := faults[0].notModified.Load() - before; n != 1 {
		t.Errorf("the rediscovery after a miss was answered 304 Not Modified %d times, want 1", n)
	}
	if got := faults[0].paths(); got["/apis"] != 2 || faults[0].served.Load()-served != 1 {
		t.Errorf("the rediscovery after a miss of a named group asked %v in all, want /apis once more", got)
	}
}

// A cluster discovers the part of its API server that a lookup needs, and only that: /api for the kinds of the
// legacy group, /apis for those of named groups, and both for a resource without a group, which may match in any.
func TestLookupsDiscoverOnlyThePartTheyNeed(t *testing.T) {
	full := wholeDiscovery(t, config(t, "member-2"))
	pool := restmapper.NewPool()

	legacy := &discoveryFault{}
	m := newMapper(t, pool, legacy.wrap(config(t, "member-2")))
	if _, err := m.RESTMapping(schema.GroupKind{Kind: "ConfigMap"}, "v1"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.RESTMapping(schema.GroupKind{Kind: "Secret"}); err != nil {
		t.Fatal(err)
	}
	if got := legacy.paths(); len(got) != 1 || got["/api"] != 1 {
		t.Errorf("lookups of legacy kinds asked for %v, want /api once", got)
	}
	if _, err := m.RESTMapping(schema.GroupKind{Group: "apps", Kind: "Deployment"}); err != nil {
		t.Fatal(err)
	}
	if got := legacy.paths(); len(got) != 2 || got["/api"] != 1 || got["/apis"] != 1 {
		t.Errorf("after a lookup of a named group's kind: asked for %v, want /api and /apis once each", got)
	}

	named := &discoveryFault{}
	m = newMapper(t, pool, named.wrap(config(t, "member-2")))
	if _, err := m.RESTMapping(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "v1"); err != nil {
		t.Fatal(err)
	}
	if got := named.paths(); len(got) != 1 || got["/apis"] != 1 {
		t.Errorf("a lookup of a named group's kind asked for %v, want /apis once", got)
	}

	// "events" is served by the legacy group and by events.k8s.io: without a group, both parts are looked in, the
	// legacy group first, as client-go's RESTMappers do.
	both := &discoveryFault{}
	m = newMapper(t, pool, both.wrap(config(t, "member-2")))
	for _, resource := range []string{"events", "deployments", "configmaps"} {
		partial := schema.GroupVersionResource{Resource: resource}
		want, wantErr := full.KindFor(partial)
		got, err := m.KindFor(partial)
		if err != nil || wantErr != nil || got != want {
			t.Errorf("KindFor(%q): %v (%v), the whole discovery's %v (%v)", resource, got, err, want, wantErr)
		}
	}
	if singular, err := m.ResourceSingularizer("deployments"); err != nil || singular != "deployment" {
		t.Errorf("ResourceSingularizer(deployments) = %q, %v", singular, err)
	}
	if got := both.paths(); len(got) != 2 || got["/api"] != 1 || got["/apis"] != 1 {
		t.Errorf("lookups of resources without a group asked for %v, want /api and /apis once each", got)
	}
}

// Two clusters with different CRDs each map their own CRD and not the other's.
func TestClustersMapOnlyTheirOwnCRDs(t *testing.T) {
	gvk0 := installCRD(t, "member-0", uniqueGroup(t)+"-a")
	gvk1 := installCRD(t, "member-1", uniqueGroup(t)+"-b")
	pool := restmapper.NewPool()
	m0 := newMapper(t, pool, config(t, "member-0"))
	m1 := newMapper(t, pool, config(t, "member-1"))

	for _, c := range []struct {
		name        string
		m           meta.RESTMapper
		own, others schema.GroupVersionKind
	}{{"member-0", m0, gvk0, gvk1}, {"member-1", m1, gvk1, gvk0}} {
		mapping, err := c.m.RESTMapping(c.own.GroupKind(), c.own.Version)
		if err != nil {
			t.Errorf("%s does not map its own CRD %s: %v", c.name, c.own, err)
		} else if mapping.Resource.Resource != "widgets" || mapping.Scope.Name() != meta.RESTScopeNameNamespace {
			t.Errorf("%s maps %s to %v (%s)", c.name, c.own, mapping.Resource, mapping.Scope.Name())
		}
		if _, err := c.m.RESTMapping(c.others.GroupKind(), c.others.Version); !meta.IsNoMatchError(err) {
			t.Errorf("%s maps the other cluster's CRD %s: want a no-match error, got %v", c.name, c.others, err)
		}
	}
	if n := pool.Groups(); n != 2 {
		t.Errorf("two clusters serving different CRDs are in %d groups, want 2", n)
	}
}

// A CRD installed into a cluster after its first lookup maps on that cluster at its next lookup, and the clusters
// that shared its group keep theirs.
func TestCRDInstalledLaterMapsThere(t *testing.T) {
	group := uniqueGroup(t)
	pool := restmapper.NewPool()
	m0 := newMapper(t, pool, config(t, "member-0"))
	m1 := newMapper(t, pool, config(t, "member-1"))
	gk := schema.GroupKind{Group: group, Kind: "Widget"}
	for _, m := range []meta.RESTMapper{m0, m1} {
		if _, err := m.RESTMapping(gk, "v1"); !meta.IsNoMatchError(err) {
			t.Fatalf("before the CRD is installed: want a no-match error, got %v", err)
		}
	}
	installCRD(t, "member-0", group)
	if _, err := m0.RESTMapping(gk, "v1"); err != nil {
		t.Errorf("member-0 does not map the CRD installed into it: %v", err)
	}
	if _, err := m1.RESTMapping(gk, "v1"); !meta.IsNoMatchError(err) {
		t.Errorf("member-1 maps a CRD installed into member-0 only: want a no-match error, got %v", err)
	}
	if _, err := m1.RESTMapping(schema.GroupKind{Kind: "ConfigMap"}, "v1"); err != nil {
		t.Errorf("member-1: %v", err)
	}
}

// A cluster whose discovery fails fails its own lookups, with an error that is not a no-match error, and is
// discovered again by its next lookup; other clusters of the same pool and API server are not affected, and the
// failing cluster joins their group once it is discovered.
func TestFailingDiscoveryAffectsOnlyItsCluster(t *testing.T) {
	pool := restmapper.NewPool()
	healthy := newMapper(t, pool, config(t, "member-2"))
	fault := &discoveryFault{}
	fault.failing.Store(true)
	failing := newMapper(t, pool, fault.wrap(config(t, "member-2")))
	gk := schema.GroupKind{Kind: "ConfigMap"}

	for range 3 {
		_, err := failing.RESTMapping(gk, "v1")
		if err == nil || meta.IsNoMatchError(err) {
			t.Fatalf("lookup while discovery fails: want a discovery error, got %v", err)
		}
	}
	if _, err := healthy.RESTMapping(gk, "v1"); err != nil {
		t.Fatalf("the healthy cluster: %v", err)
	}
	if n := pool.Groups(); n != 1 {
		t.Errorf("%d groups while one cluster's discovery fails, want 1", n)
	}

	fault.failing.Store(false)
	if _, err := failing.RESTMapping(gk, "v1"); err != nil {
		t.Fatalf("lookup once discovery works again: %v", err)
	}
	if n := pool.Groups(); n != 1 {
		t.Errorf("the recovered cluster is not in the group of its API server's other cluster: %d groups", n)
	}
}

// Lookups that miss at the same time share their rediscovery: a burst of misses costs a couple of discoveries, not
// one each.
func TestConcurrentMissesShareADiscovery(t *testing.T) {
	fault := &discoveryFault{}
	m := newMapper(t, restmapper.NewPool(), fault.wrap(config(t, "member-2")))
	const lookups = 50
	var wg sync.WaitGroup
	errs := make(chan error, lookups)
	for range lookups {
		wg.Go(func() {
			_, err := m.RESTMapping(schema.GroupKind{Group: "no.such.group", Kind: "Thing"})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if !meta.IsNoMatchError(err) {
			t.Fatalf("want no-match errors, got %v", err)
		}
	}
	// The first discovery, then one for the misses that came before it ended, one for those that came during that
	// one, and so on: a handful, however many goroutines miss. Each is one request, for /apis.
	if n := fault.served.Load(); n > 8 {
		t.Errorf("%d lookups that missed at once made %d discoveries", lookups, n)
	}
}

// The RESTMapper of both documents together, which a lookup without a group builds, is shared by clusters of the
// same groups and released with the groups once no cluster refers to it.
func TestCombinedMapperIsSharedAndReleased(t *testing.T) {
	pool := restmapper.NewPool()
	for range 3 {
		m := newMapper(t, pool, config(t, "member-2"))
		if _, err := m.KindFor(schema.GroupVersionResource{Resource: "events"}); err != nil {
			t.Fatal(err)
		}
		if n := pool.Combined(); n != 1 {
			t.Fatalf("clusters of the same two documents hold %d combined RESTMappers, want 1", n)
		}
	}
	harness.Eventually(t, timeout, "the combined RESTMapper and the documents released", func() bool {
		runtime.GC()
		return pool.Combined() == 0 && pool.Groups() == 0
	})
}

// Only entity tags that are digests of the documents' content are sent back in conditional requests.
func TestContentETag(t *testing.T) {
	digest := strings.Repeat("0123456789ABCDEF", 8)
	for _, tc := range []struct {
		etag, want string
	}{
		{`"` + digest + `"`, `"` + digest + `"`},
		{`"` + strings.ToLower(digest) + `"`, `"` + strings.ToLower(digest) + `"`},
		{`W/"` + digest + `"`, ""},
		{digest, ""},
		{`"` + digest[:32] + `"`, ""},
		{`"42"`, ""},
		{`"` + digest[:127] + `G"`, ""},
		{"", ""},
	} {
		if got := restmapper.ContentETag(tc.etag); got != tc.want {
			t.Errorf("contentETag(%q) = %q, want %q", tc.etag, got, tc.want)
		}
	}
}

// ClusterOption leaves a RESTMapper chosen by an earlier option alone.
func TestClusterOptionKeepsAnEarlierMapperProvider(t *testing.T) {
	sentinel := errors.New("the user's mapper provider")
	_, err := cluster.New(config(t, "member-2"),
		func(o *cluster.Options) {
			o.MapperProvider = func(*rest.Config, *http.Client) (meta.RESTMapper, error) { return nil, sentinel }
		},
		restmapper.ClusterOption())
	if !errors.Is(err, sentinel) {
		t.Fatalf("cluster.New: want the user's mapper provider to be used, got %v", err)
	}

	cl, err := cluster.New(config(t, "member-2"), restmapper.ClusterOption())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.GetRESTMapper().RESTMapping(schema.GroupKind{Kind: "ConfigMap"}, "v1"); err != nil {
		t.Fatal(err)
	}
	if _, err := apiutil.GVKForObject(&corev1.ConfigMap{}, cl.GetScheme()); err != nil {
		t.Fatal(err)
	}
}
