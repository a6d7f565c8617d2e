// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"net/http"
	"strings"
	"sync"

	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/rest"
)

// The suite fits hundreds of clusters on each of a few API servers: every cluster is a namespace of a member, and
// its cache selects its objects by field (see inNamespace). An API server serves a list or watch of a kind across
// all namespaces from every object of that kind it holds, filtered: a cluster's list would cost the member the
// objects of every cluster on it, hundreds of times what the list of a real member holding one cluster's objects
// costs. Every arm would wait for that quadratic work, whatever the controller did, and the scenarios would measure
// the test bed. namespacePaths sends such a request to the path of the namespace instead, which the API server
// serves from that namespace's objects alone: each list and watch then costs the member what it would cost a member
// of its own. The response is the same list, or the same events, either way.

// namespacePaths wraps rt so that a request for a collection across all namespaces whose field selector is exactly
// metadata.namespace=NS is sent to the collection of namespace NS, with its query unchanged.
func namespacePaths(rt http.RoundTripper) http.RoundTripper { return &namespacePathRT{rt: rt} }

type namespacePathRT struct{ rt http.RoundTripper }

func (n *namespacePathRT) RoundTrip(req *http.Request) (*http.Response, error) {
	memberRequests.count(req)
	if req.URL != nil {
		if path, ok := namespacePath(req.URL.Path, req.URL.Query().Get("fieldSelector")); ok {
			req = req.Clone(req.Context())
			req.URL.Path, req.URL.RawPath = path, ""
		}
	}
	return n.rt.RoundTrip(req)
}

// WrappedRoundTripper returns the round tripper n wraps, as client-go's wrappers do.
func (n *namespacePathRT) WrappedRoundTripper() http.RoundTripper { return n.rt }

// namespacePath returns the path of the collection at path (/api/v1/R or /apis/G/V/R) in the namespace that
// selector selects, if selector selects exactly one namespace and nothing else.
func namespacePath(path, selector string) (string, bool) {
	ns, ok := strings.CutPrefix(selector, "metadata.namespace=")
	if !ok || ns == "" || strings.ContainsAny(ns, ",=!") {
		return "", false
	}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	var prefix []string
	switch {
	case len(parts) == 3 && parts[0] == "api":
		prefix = parts[:2]
	case len(parts) == 4 && parts[0] == "apis":
		prefix = parts[:3]
	default:
		return "", false
	}
	resource := parts[len(parts)-1]
	if resource == "namespaces" {
		return "", false
	}
	return "/" + strings.Join(append(prefix, "namespaces", ns, resource), "/"), true
}

// withNamespacePaths returns a copy of cfg whose requests go through namespacePaths.
func withNamespacePaths(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(namespacePaths)
	return cfg
}

// listThenWatch makes the informers created until restore is called list and then watch, instead of streaming
// their initial list through the watch (client-go's WatchListClient feature), and returns the function that
// restores client-go's feature gates. It changes client-go's gates for the whole process: the scenarios run one
// at a time.
func listThenWatch() (restore func()) {
	previous := clientfeatures.FeatureGates()
	clientfeatures.ReplaceFeatureGates(withoutWatchList{previous})
	return func() { clientfeatures.ReplaceFeatureGates(previous) }
}

// withoutWatchList is client-go's feature gates with WatchListClient off.
type withoutWatchList struct{ clientfeatures.Gates }

func (g withoutWatchList) Enabled(key clientfeatures.Feature) bool {
	return key != clientfeatures.WatchListClient && g.Gates.Enabled(key)
}

// memberRequests counts the requests sent through namespacePaths, that is to the members, by kind of request.
var memberRequests = &requestCounts{}

// requestCounts counts requests by kind: discovery, list, watch and other.
type requestCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *requestCounts) count(req *http.Request) {
	kind := "other"
	switch q := req.URL.Query(); {
	case req.Method == http.MethodGet && q.Get("watch") == "true":
		kind = "watch"
	case req.Method == http.MethodGet && isDiscovery(req.URL.Path):
		kind = "discovery"
	case req.Method == http.MethodGet:
		kind = "list or get"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[kind]++
}

// take returns the counts so far and starts again from zero.
func (c *requestCounts) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = nil
	return n
}

// isDiscovery tells whether path is a discovery document: /api, /apis, /api/V or /apis/G/V.
func isDiscovery(path string) bool {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	return parts[0] == "api" && len(parts) <= 2 || parts[0] == "apis" && len(parts) <= 3
}
