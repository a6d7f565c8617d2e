// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// calls records which wrapper saw which request, in the order they saw them.
type calls struct {
	mu  sync.Mutex
	log []string
}

func (c *calls) wrapper(name string) func(http.RoundTripper) http.RoundTripper {
	return func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			c.mu.Lock()
			c.log = append(c.log, name+" "+req.URL.RawQuery+" "+req.Header.Get("Accept-Encoding"))
			c.mu.Unlock()
			return rt.RoundTrip(req)
		})
	}
}

func (c *calls) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.log
	c.log = nil
	return out
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// WrapTransport's wrappers see every request of the cluster, outermost last, before the uncompressed-watches
// wrapper; the same options applied to two clusters wrap each once; CompressedWatches combines with them; and the
// server below sees what the library's wrappers add.
func TestWrapTransport(t *testing.T) {
	var (
		mu        sync.Mutex
		encodings []string
	)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		encodings = append(encodings, r.Header.Get("Accept-Encoding"))
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer server.Close()
	lastEncoding := func() string {
		mu.Lock()
		defer mu.Unlock()
		return encodings[len(encodings)-1]
	}

	c := &calls{}
	opts := []cluster.Option{clusters.WrapTransport(c.wrapper("inner")), clusters.WrapTransport(c.wrapper("outer")),
		clusters.WrapTransport(nil)}
	get := func(cl cluster.Cluster, query string) {
		t.Helper()
		resp, err := cl.GetHTTPClient().Get(server.URL + "/api/v1/configmaps?" + query)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	for _, name := range []multicluster.ClusterName{"one", "two"} {
		cl, err := clusters.NewCluster(name, &rest.Config{Host: server.URL}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		get(cl, "watch=true")
		if got, want := c.take(), []string{"outer watch=true ", "inner watch=true "}; !slices.Equal(got, want) {
			t.Errorf("cluster %s: wrappers saw %q, want %q", name, got, want)
		}
		if got := lastEncoding(); got != "identity" {
			t.Errorf("cluster %s: the watch reached the server with Accept-Encoding %q, want identity", name, got)
		}
	}

	cl, err := clusters.NewCluster("compressed", &rest.Config{Host: server.URL}, append(opts, clusters.CompressedWatches())...)
	if err != nil {
		t.Fatal(err)
	}
	get(cl, "watch=true")
	if got, want := c.take(), []string{"outer watch=true ", "inner watch=true "}; !slices.Equal(got, want) {
		t.Errorf("with CompressedWatches: wrappers saw %q, want %q", got, want)
	}
	if got := lastEncoding(); got == "identity" {
		t.Error("with CompressedWatches: the watch asked for an uncompressed response")
	}

	// An HTTP client set after the options replaces what they describe.
	own := &http.Client{Transport: http.DefaultTransport}
	cl, err = clusters.NewCluster("own", &rest.Config{Host: server.URL}, append(opts, func(o *cluster.Options) { o.HTTPClient = own })...)
	if err != nil {
		t.Fatal(err)
	}
	get(cl, "watch=true")
	if got := c.take(); len(got) != 0 {
		t.Errorf("with a client of the caller's set last, the wrappers saw %q", got)
	}
}
