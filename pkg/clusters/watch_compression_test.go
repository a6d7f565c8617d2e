// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"net/http"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
)

type lastRequest struct{ req *http.Request }

func (l *lastRequest) RoundTrip(req *http.Request) (*http.Response, error) {
	l.req = req
	return &http.Response{StatusCode: http.StatusOK, Request: req, Body: http.NoBody}, nil
}

// Watches without an encoding ask for identity; anything else is sent as it is, and the caller's request is never
// changed.
func TestUncompressedWatches(t *testing.T) {
	for _, c := range []struct {
		url, encoding, want string
	}{
		{"https://h/api/v1/configmaps?watch=true", "", "identity"},
		{"https://h/api/v1/configmaps?sendInitialEvents=true&watch=1", "", "identity"},
		{"https://h/api/v1/configmaps?watch=true", "gzip", "gzip"},
		{"https://h/api/v1/configmaps?watch=false", "", ""},
		{"https://h/api/v1/configmaps?limit=500", "", ""},
		{"https://h/api/v1/namespaces/watch/configmaps", "", ""},
	} {
		last := &lastRequest{}
		rt := clusters.UncompressedWatches(last)
		req, err := http.NewRequest(http.MethodGet, c.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.encoding != "" {
			req.Header.Set("Accept-Encoding", c.encoding)
		}
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if got := last.req.Header.Get("Accept-Encoding"); got != c.want {
			t.Errorf("%s with Accept-Encoding %q: sent %q, want %q", c.url, c.encoding, got, c.want)
		}
		if got := req.Header.Get("Accept-Encoding"); got != c.encoding {
			t.Errorf("%s: the caller's request was changed to Accept-Encoding %q", c.url, got)
		}
	}
	if w, ok := clusters.UncompressedWatches(http.DefaultTransport).(interface{ WrappedRoundTripper() http.RoundTripper }); !ok || w.WrappedRoundTripper() != http.DefaultTransport {
		t.Error("the wrapper does not return the round tripper it wraps")
	}
}

// CompressedWatches and WrapTransport only mean something to NewCluster: a client built from them elsewhere says so
// on every request.
func TestClientOptionsOutsideNewCluster(t *testing.T) {
	for name, opt := range map[string]cluster.Option{
		"CompressedWatches": clusters.CompressedWatches(),
		"WrapTransport":     clusters.WrapTransport(func(rt http.RoundTripper) http.RoundTripper { return rt }),
	} {
		var o cluster.Options
		opt(&o)
		req, err := http.NewRequest(http.MethodGet, "https://h/api", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := o.HTTPClient.Transport.RoundTrip(req)
		if err == nil {
			_ = resp.Body.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "clusters.NewCluster") {
			t.Errorf("%s: error %v, want one that names clusters.NewCluster", name, err)
		}
	}
}
