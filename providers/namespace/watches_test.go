// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespace_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// watchedResources are the resources the test's controller and the provider watch: ConfigMaps (For), Secrets
// (Watches) and Namespaces (the provider's discovery).
var watchedResources = []string{"configmaps", "secrets", "namespaces"}

// Virtual clusters share one watch per kind: on the host control plane, with a controller watching ConfigMaps and
// Secrets, 100 namespaces engaged and reconciled cost ONE listing and ONE long-running watch per kind, for all
// namespaces together, counted on the wire by a RoundTripper wrapped into the host rest.Config that both the manager
// and the shared cluster use. (client-go 1.37 lists with a watch-list, whose stream stays open as the watch: then the
// listing and the watch are one request; with KUBE_FEATURE_WatchListClient=false they are a list and a watch, and the
// test passes the same.) 100 more namespaces, and disengaging the first 100, start none: every virtual cluster's cache
// is a view of the shared cache, and every virtual cluster's informer of a kind is a view of the one shared informer of
// that kind. Once everything is deleted and the manager stopped, no goroutine is left (goleak).
//
// Allowed slack: the API server ends every watch after its timeout (client-go asks for 5 to 10 minutes); a
// reflector then watches again, and lists again first if its watch failed (its resource version expired, for
// example). Those are not per namespace, so the counts allow one more watch, and one more listing, for every watch
// that had ENDED by the time of a check, and nothing else: exactly one watch per kind is open at each check, and
// never were two at once (checkSharedWatches). On a normal run no watch ends, and the figures are exactly 1 and 1
// (logged).
//
// The test fails without the sharing. Checked by temporarily making namespaced.Host.NewCluster give each virtual
// cluster a cache of its own, started with it: restricted to its namespace (cache.New with DefaultNamespaces), the
// first check fails with 104 open watches of configmaps and of secrets (one per engaged namespace, envtest's four
// included), the second with 204, and the cache identity check fails; unrestricted (cache.New without
// DefaultNamespaces), the same with 104 and 204 watches of /api/v1/configmaps and /api/v1/secrets. Neither break is
// committed.
func TestVirtualClustersShareOneWatchPerKind(t *testing.T) {
	const n = 100

	ignore := goleak.IgnoreCurrent()
	c := hostClient(t)

	counter := newRequestCounter()
	cfg := rest.CopyConfig(fleet.Host())
	cfg.Wrap(counter.wrap)
	shared, err := cluster.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := namespace.New(shared)
	mgr := harness.NewManager(t, cfg, p, nil)
	if err := mgr.GetLocalManager().Add(shared); err != nil {
		t.Fatal(err)
	}
	rec := harness.NewRecorder()
	// The controller's name is unique, so that -count=N can run the test again in the same process.
	err = mcbuilder.ControllerManagedBy(mgr).
		Named(harness.UniqueName("ns-watches")).
		For(&corev1.ConfigMap{}).
		Watches(&corev1.Secret{}, mchandler.EnqueueRequestForObject).
		Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			rec.Add(req.ClusterName.String() + "/" + req.Namespace + "/" + req.Name)
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	stopManager := harness.StartManager(t, t.Context(), mgr)

	// populate creates namespaces with a ConfigMap "cm" and a Secret "s" each, and waits until the controller has
	// reconciled both objects of every one of them, through its virtual cluster.
	populate := func(names []string) {
		t.Helper()
		var failed atomic.Bool
		parallel(t, names, func(name string) {
			for _, obj := range []client.Object{
				&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}},
				harness.ConfigMap(name, "cm", nil),
				&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: name, Name: "s"}},
			} {
				if err := c.Create(t.Context(), obj); err != nil {
					t.Error(err)
					failed.Store(true)
					return
				}
			}
		})
		if failed.Load() {
			t.FailNow()
		}
		harness.Eventually(t, harness.ShortWait*2, fmt.Sprintf("%d namespaces reconciled", len(names)), func() bool {
			for _, name := range names {
				if !rec.Has(name+"/default/cm") || !rec.Has(name+"/default/s") {
					return false
				}
			}
			return true
		})
	}
	batch := func(prefix string, count int) []string {
		names := make([]string, count)
		for i := range names {
			names[i] = fmt.Sprintf("%s-%03d-%s", prefix, i, harness.UniqueName("x"))
		}
		return names
	}

	first := batch("watch-a", n)
	populate(first)
	counts := counter.snapshot()
	checkSharedWatches(t, counts, fmt.Sprintf("%d namespaces engaged", n))
	logCounts(t, counts, fmt.Sprintf("%d namespaces engaged", n))

	second := batch("watch-b", n)
	populate(second)
	checkSharedWatches(t, counter.snapshot(), fmt.Sprintf("%d more namespaces engaged", n))

	// No cache and no informer per namespace: every virtual cluster's cache is a view of the shared cache, and its
	// informer of a kind a view of the shared informer of that kind.
	sharedInformers := map[string]any{}
	kinds := map[string]client.Object{"ConfigMap": &corev1.ConfigMap{}, "Secret": &corev1.Secret{}}
	for kind, obj := range kinds {
		inf, err := shared.GetCache().GetInformer(t.Context(), obj)
		if err != nil {
			t.Fatal(err)
		}
		sharedInformers[kind] = inf
	}
	for _, name := range slices.Concat(first, second) {
		vc := virtualCluster(t, p, name)
		vcache, ok := vc.GetCache().(*namespace.NamespacedCache)
		if !ok {
			t.Fatalf("cluster %s: GetCache returned %T, want *namespace.NamespacedCache", name, vc.GetCache())
		}
		if vcache.Cache != shared.GetCache() {
			t.Fatalf("cluster %s: its cache is not a view of the shared cache", name)
		}
		for kind, obj := range kinds {
			inf, err := vc.GetCache().GetInformer(t.Context(), obj)
			if err != nil {
				t.Fatalf("cluster %s: informer of %s: %v", name, kind, err)
			}
			scoped, ok := inf.(*namespace.ScopedInformer)
			if !ok {
				t.Fatalf("cluster %s: informer of %s is a %T, want *namespace.ScopedInformer", name, kind, inf)
			}
			if scoped.Informer != sharedInformers[kind] {
				t.Fatalf("cluster %s: its informer of %s is not a view of the shared informer", name, kind)
			}
		}
	}

	// Disengaging virtual clusters stops no shared watch: a third batch is served by the same watches.
	deleteNamespaces(t, c, p, first)
	checkSharedWatches(t, counter.snapshot(), fmt.Sprintf("%d namespaces disengaged", n))
	third := batch("watch-c", 5)
	populate(third)
	counts = counter.snapshot()
	checkSharedWatches(t, counts, "namespaces engaged after others were disengaged")
	logCounts(t, counts, "at the end")

	deleteNamespaces(t, c, p, slices.Concat(second, third))
	stopManager()
	harness.WaitNoLeak(t, ignore)
}

// checkSharedWatches fails the test unless, for every watched resource, exactly one watch is open, no two were ever
// open at once, and every watch and listing beyond the first replaced a watch that had ended (see
// TestVirtualClustersShareOneWatchPerKind for why that slack).
func checkSharedWatches(t *testing.T, counts map[string]resourceRequests, when string) {
	t.Helper()
	for _, resource := range watchedResources {
		r := counts[resource]
		switch {
		case r.watches-r.ended != 1:
			t.Errorf("%s: %d watches of %s open, want 1 (%s)", when, r.watches-r.ended, resource, r)
		case r.maxOpen != 1:
			t.Errorf("%s: up to %d watches of %s were open at once, want 1 (%s)", when, r.maxOpen, resource, r)
		case r.listings < 1 || r.listings > 1+r.ended:
			t.Errorf("%s: %d listings of %s, want 1, plus at most one per ended watch (%s)", when, r.listings, resource, r)
		}
	}
}

func logCounts(t *testing.T, counts map[string]resourceRequests, when string) {
	t.Helper()
	for _, resource := range watchedResources {
		t.Logf("%s: %s: %s", when, resource, counts[resource])
	}
}

// deleteNamespaces deletes the namespaces and their ConfigMaps and Secrets, and waits until the provider has
// disengaged their virtual clusters.
func deleteNamespaces(t *testing.T, c client.Client, p *namespace.Provider, names []string) {
	t.Helper()
	parallel(t, names, func(name string) {
		for _, obj := range []client.Object{&corev1.ConfigMap{}, &corev1.Secret{}} {
			if err := c.DeleteAllOf(t.Context(), obj, client.InNamespace(name)); err != nil {
				t.Error(err)
			}
		}
		harness.DeleteNamespace(t, c, name)
	})
	harness.Eventually(t, harness.ShortWait, fmt.Sprintf("%d namespaces disengaged", len(names)), func() bool {
		for _, name := range names {
			if _, err := p.Get(t.Context(), multicluster.ClusterName(name)); err == nil {
				return false
			}
		}
		return true
	})
}

// requestCounter is an http.RoundTripper wrapper that counts the list and watch requests of every resource, and
// how many of the watches are open.
type requestCounter struct {
	mu        sync.Mutex
	resources map[string]*resourceRequests
}

// resourceRequests are the list and watch requests of one resource, across namespaces.
type resourceRequests struct {
	// listings counts the requests that list the resource: lists (their first pages only; a continuation is part
	// of the same list) and watch-lists (watches with sendInitialEvents, which stream the listing, then stay
	// open as the watch).
	listings int
	// watchLists counts the watch-lists among the listings.
	watchLists int
	// watches counts the watch requests, watch-lists included; ended those whose response has ended (or failed).
	watches, ended int
	// maxOpen is the most watches that were open at the same time.
	maxOpen int
	// paths are the distinct request paths, to tell namespaced from cluster-wide requests in a failure.
	paths []string
}

func (r resourceRequests) String() string {
	return fmt.Sprintf("%d listings (%d of them watch-lists), %d watches started, %d ended, at most %d open at once; paths %v",
		r.listings, r.watchLists, r.watches, r.ended, r.maxOpen, truncated(r.paths, 3))
}

func truncated(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(slices.Clone(s[:n]), fmt.Sprintf("and %d more", len(s)-n))
}

func newRequestCounter() *requestCounter {
	return &requestCounter{resources: map[string]*resourceRequests{}}
}

// wrap is a rest.Config WrapTransport.
func (c *requestCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		resource, collection := resourceOf(req.URL.Path)
		if req.Method != http.MethodGet || !collection {
			return rt.RoundTrip(req)
		}
		q := req.URL.Query()
		watch := q.Get("watch") == "true" || q.Get("watch") == "1"
		if !watch && q.Get("continue") != "" {
			return rt.RoundTrip(req)
		}
		c.started(resource, req.URL.Path, watch, watch && q.Get("sendInitialEvents") == "true")
		resp, err := rt.RoundTrip(req)
		if !watch {
			return resp, err
		}
		if err != nil {
			c.ended(resource)
			return resp, err
		}
		resp.Body = &watchBody{ReadCloser: resp.Body, end: func() { c.ended(resource) }}
		return resp, nil
	})
}

func (c *requestCounter) started(resource, path string, watch, watchList bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.resources[resource]
	if r == nil {
		r = &resourceRequests{}
		c.resources[resource] = r
	}
	if !watch || watchList {
		r.listings++
	}
	if watchList {
		r.watchLists++
	}
	if watch {
		r.watches++
		r.maxOpen = max(r.maxOpen, r.watches-r.ended)
	}
	if !slices.Contains(r.paths, path) {
		r.paths = append(r.paths, path)
	}
}

func (c *requestCounter) ended(resource string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.resources[resource].ended++
}

// snapshot returns the counts so far, by resource.
func (c *requestCounter) snapshot() map[string]resourceRequests {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]resourceRequests, len(c.resources))
	for resource, r := range c.resources {
		copied := *r
		copied.paths = slices.Clone(r.paths)
		out[resource] = copied
	}
	return out
}

// resourceOf parses an API path: /api/v1[/namespaces/NS]/RESOURCE[/NAME...] or the same under /apis/GROUP/VERSION.
// It returns the resource (prefixed with its group, if any) and whether the path is the resource's collection,
// which is what lists and watches request.
func resourceOf(path string) (resource string, collection bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	group := ""
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		group, parts = parts[1]+"/", parts[3:]
	default:
		return "", false
	}
	if len(parts) >= 3 && parts[0] == "namespaces" {
		parts = parts[2:]
	}
	return group + parts[0], len(parts) == 1
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// watchBody is the body of a watch response; end is called once, when the watch ends: at the end of the stream, a
// read error or Close, whichever comes first.
type watchBody struct {
	io.ReadCloser
	once sync.Once
	end  func()
}

func (b *watchBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.once.Do(b.end)
	}
	return n, err
}

func (b *watchBody) Close() error {
	b.once.Do(b.end)
	return b.ReadCloser.Close()
}
