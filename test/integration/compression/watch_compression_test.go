// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package compression_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{})
}

// exchange is what the innermost round tripper saw of one request to the ConfigMaps of the test's namespace.
type exchange struct {
	watch          bool
	acceptEncoding string
	// decompressed: the response came gzip-compressed and the transport decompressed it.
	decompressed bool
}

// recorder records the exchanges about ConfigMaps of every client built from a config it wraps (wrap).
type recorder struct {
	mu        sync.Mutex
	exchanges []exchange
}

// wrap is a rest.Config's WrapTransport: it sits right above the HTTP transport, below every wrapper the library
// adds, so it sees the requests as they are sent and the responses as the server compressed them.
func (r *recorder) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) { return r.roundTrip(rt, req) })
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func (r *recorder) roundTrip(rt http.RoundTripper, req *http.Request) (*http.Response, error) {
	resp, err := rt.RoundTrip(req)
	if err == nil && strings.HasSuffix(req.URL.Path, "/configmaps") {
		r.mu.Lock()
		r.exchanges = append(r.exchanges, exchange{
			watch:          req.URL.Query().Get("watch") == "true",
			acceptEncoding: req.Header.Get("Accept-Encoding"),
			decompressed:   resp.Uncompressed,
		})
		r.mu.Unlock()
	}
	return resp, err
}

// seen returns the recorded lists and watches.
func (r *recorder) seen() (lists, watches []exchange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.exchanges {
		if e.watch {
			watches = append(watches, e)
		} else {
			lists = append(lists, e)
		}
	}
	return lists, watches
}

// syncConfigMaps builds a cluster of the host for namespace ns with build, from a config whose transport rec wraps
// first, starts it, waits until its ConfigMap informer is watching (client-go streams the initial list through the
// watch), and lists the ConfigMaps of ns once through the cluster's API reader.
func syncConfigMaps(t *testing.T, ns string, rec *recorder, build func(cfg *rest.Config, opts ...cluster.Option) (cluster.Cluster, error)) {
	t.Helper()
	cfg := rest.CopyConfig(fleet.Host())
	cfg.Wrap(rec.wrap)
	cl, err := build(cfg, func(o *cluster.Options) { o.Cache.DefaultNamespaces = map[string]cache.Config{ns: {}} })
	if err != nil {
		t.Fatal(err)
	}
	harness.RunCluster(t, cl)
	if _, err := cl.GetCache().GetInformer(t.Context(), &corev1.ConfigMap{}); err != nil {
		t.Fatal(err)
	}
	if err := cl.GetAPIReader().List(t.Context(), &corev1.ConfigMapList{}, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, harness.ShortWait, "a list and a watch of ConfigMaps", func() bool {
		lists, watches := rec.seen()
		return len(lists) > 0 && len(watches) > 0
	})
}

// TestWatchesUncompressed: NewCluster's clusters ask for their watches (which also stream the initial list) uncompressed
// and get them so, while their lists stay compressed; with the HTTP client a caller sets (the documented way to keep compression), the same
// server compresses the watches, so the default is what makes the difference.
func TestWatchesUncompressed(t *testing.T) {
	before := goleak.IgnoreCurrent()
	defer harness.WaitNoLeak(t, before)

	// Enough data that the API server compresses the list (it compresses responses of 128 KiB and more).
	ns := harness.NewNamespace(t, fleet, "compression", mcenvtest.HostName)
	for i := range 40 {
		harness.CreateConfigMap(t, fleet, mcenvtest.HostName, ns, fmt.Sprintf("cm-%02d", i), "data", strings.Repeat("x", 4096))
	}

	t.Run("NewCluster", func(t *testing.T) {
		rec := &recorder{}
		syncConfigMaps(t, ns, rec, func(cfg *rest.Config, opts ...cluster.Option) (cluster.Cluster, error) {
			return clusters.NewCluster(multicluster.ClusterName("compression"), cfg, opts...)
		})
		lists, watches := rec.seen()
		for _, w := range watches {
			if w.acceptEncoding != "identity" || w.decompressed {
				t.Errorf("watch sent with Accept-Encoding %q, response compressed: %v; want identity, uncompressed", w.acceptEncoding, w.decompressed)
			}
		}
		for _, l := range lists {
			if l.acceptEncoding != "" || !l.decompressed {
				t.Errorf("list sent with Accept-Encoding %q, response compressed: %v; want the transport's gzip", l.acceptEncoding, l.decompressed)
			}
		}
	})

	// The documented ways to keep watches compressed.
	for name, keep := range map[string]func(cfg *rest.Config) (cluster.Option, error){
		"CompressedWatches": func(*rest.Config) (cluster.Option, error) { return clusters.CompressedWatches(), nil },
		"HTTPClient set by the caller": func(cfg *rest.Config) (cluster.Option, error) {
			httpClient, err := rest.HTTPClientFor(cfg)
			return func(o *cluster.Options) { o.HTTPClient = httpClient }, err
		},
	} {
		t.Run(name, func(t *testing.T) {
			rec := &recorder{}
			syncConfigMaps(t, ns, rec, func(cfg *rest.Config, opts ...cluster.Option) (cluster.Cluster, error) {
				opt, err := keep(cfg)
				if err != nil {
					return nil, err
				}
				return clusters.NewCluster(multicluster.ClusterName("compression"), cfg, append(opts, opt)...)
			})
			_, watches := rec.seen()
			for _, w := range watches {
				if !w.decompressed {
					t.Errorf("watch response not compressed (Accept-Encoding %q): the server no longer compresses watches, or the option did not keep them compressed", w.acceptEncoding)
				}
			}
		})
	}
}
