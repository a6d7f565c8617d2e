// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"maps"
	"net/http"
	"net/url"
	"testing"

	clientfeatures "k8s.io/client-go/features"
)

func TestNamespacePath(t *testing.T) {
	for _, tc := range []struct {
		path, selector, want string
	}{
		{"/api/v1/configmaps", "metadata.namespace=a", "/api/v1/namespaces/a/configmaps"},
		{"/apis/apps/v1/deployments", "metadata.namespace=b", "/apis/apps/v1/namespaces/b/deployments"},
		// Left alone: no namespace selected, more than a namespace selected, a namespaced or named path, namespaces.
		{"/api/v1/configmaps", "", ""},
		{"/api/v1/configmaps", "metadata.namespace=a,metadata.name=x", ""},
		{"/api/v1/configmaps", "metadata.namespace!=a", ""},
		{"/api/v1/configmaps", "metadata.name=a", ""},
		{"/api/v1/namespaces/a/configmaps", "metadata.namespace=a", ""},
		{"/api/v1/namespaces", "metadata.namespace=a", ""},
		{"/api", "metadata.namespace=a", ""},
	} {
		got, ok := namespacePath(tc.path, tc.selector)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("namespacePath(%q, %q) = %q, %v; want %q", tc.path, tc.selector, got, ok, tc.want)
		}
	}
}

func TestNamespacePathsRoundTrip(t *testing.T) {
	var sent *http.Request
	rt := namespacePaths(roundTripFunc(func(req *http.Request) (*http.Response, error) {
		sent = req
		return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}, nil
	}))
	u := &url.URL{Scheme: "https", Host: "member", Path: "/api/v1/configmaps",
		RawQuery: url.Values{"fieldSelector": {"metadata.namespace=a"}, "watch": {"true"}}.Encode()}
	req := &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if sent.URL.Path != "/api/v1/namespaces/a/configmaps" || sent.URL.RawQuery != u.RawQuery {
		t.Errorf("sent %s?%s, want the namespace's path with the query unchanged", sent.URL.Path, sent.URL.RawQuery)
	}
	if req.URL.Path != "/api/v1/configmaps" {
		t.Errorf("the caller's request was changed: %s", req.URL.Path)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func TestListThenWatch(t *testing.T) {
	enabled := func() bool { return clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient) }
	before := enabled()
	restore := listThenWatch()
	if enabled() {
		t.Error("WatchListClient still enabled")
	}
	restore()
	if enabled() != before {
		t.Errorf("WatchListClient %v after restore, want %v", enabled(), before)
	}
}

func TestRequestCounts(t *testing.T) {
	c := &requestCounts{}
	for _, u := range []string{
		"https://m/api", "https://m/apis", "https://m/api/v1", "https://m/apis/apps/v1",
		"https://m/api/v1/configmaps?fieldSelector=metadata.namespace%3Da",
		"https://m/api/v1/namespaces/a/configmaps/x",
		"https://m/api/v1/configmaps?watch=true",
	} {
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.count(req)
	}
	post, err := http.NewRequest(http.MethodPost, "https://m/api/v1/namespaces/a/configmaps", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.count(post)
	got := c.take()
	want := map[string]int{"discovery": 4, "list or get": 2, "watch": 1, "other": 1}
	if !maps.Equal(got, want) {
		t.Errorf("counts = %v, want %v", got, want)
	}
	if again := c.take(); len(again) != 0 {
		t.Errorf("counts after take = %v, want none", again)
	}
}
