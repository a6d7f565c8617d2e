// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"errors"
	"net/http"
	"slices"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
)

// UncompressedWatches wraps rt so that every watch request (a request with the query parameter watch=true or
// watch=1) asks the API server for an uncompressed response, with the header "Accept-Encoding: identity"; a
// request that already names an encoding, and every other request, is sent as it is. Lists keep the compression
// the transport asks for.
//
// A compressed watch holds a decompressor with a 32 KiB window for as long as the watch is open, about 42 KiB of
// heap per watch: one per watched type in every cluster. Uncompressed, a watch costs more bandwidth as its events
// arrive, a fair trade on the networks between a controller and its members. NewCluster applies it to every
// cluster it builds (CompressedWatches keeps them compressed); use it as a rest.Config's WrapTransport
// (cfg.Wrap(UncompressedWatches)) to do the same for a client of your own.
func UncompressedWatches(rt http.RoundTripper) http.RoundTripper {
	return &uncompressedWatches{rt: rt}
}

type uncompressedWatches struct{ rt http.RoundTripper }

// RoundTrip sends req, a copy of it with "Accept-Encoding: identity" if it is a watch without an encoding.
func (u *uncompressedWatches) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Accept-Encoding") == "" && isWatch(req) {
		req = req.Clone(req.Context())
		req.Header.Set("Accept-Encoding", "identity")
	}
	return u.rt.RoundTrip(req)
}

// WrappedRoundTripper returns the round tripper that u wraps, as client-go's wrappers do.
func (u *uncompressedWatches) WrappedRoundTripper() http.RoundTripper { return u.rt }

// isWatch says whether req asks for a watch.
func isWatch(req *http.Request) bool {
	if req.URL == nil {
		return false
	}
	switch req.URL.Query().Get("watch") {
	case "true", "1":
		return true
	}
	return false
}

// CompressedWatches is an option of NewCluster (and of every provider's cluster options, which NewCluster applies)
// that keeps the cluster's watches compressed, as controller-runtime's are: NewCluster then gives the cluster the
// HTTP client cluster.New would build (with the wrappers of WrapTransport, if any). Only NewCluster understands
// it: a cluster built by cluster.New with it fails every request with an error that says so.
func CompressedWatches() cluster.Option {
	return func(o *cluster.Options) {
		m := markerOf(o)
		m.compressed = true
		o.HTTPClient = &http.Client{Transport: m}
	}
}

// WrapTransport is an option of NewCluster (and of every provider's cluster options, which NewCluster applies)
// that wraps the transport of the cluster's HTTP client with wrap, as rest.Config's Wrap does for a config: every
// request the cluster sends (its cache's lists and watches, its client's, its discovery's and its recovery
// probe's) goes through it. Use it to instrument or decorate the requests of clusters whose rest.Config a
// provider builds from its source, where a WrapTransport of your own cannot be set.
//
// wrap is applied after the library's uncompressed-watches wrapper, so it sees each request before that wrapper
// and the transport do, and after the wrappers of earlier WrapTransport options. The option holds no state: a
// provider may apply it to every cluster it builds. An HTTP client set by a later option
// (cluster.Options.HTTPClient) replaces it. Only NewCluster understands it: a cluster built by cluster.New with it
// fails every request with an error that says so.
func WrapTransport(wrap transport.WrapperFunc) cluster.Option {
	return func(o *cluster.Options) {
		if wrap == nil {
			return
		}
		m := markerOf(o)
		m.wraps = append(slices.Clip(m.wraps), wrap)
		o.HTTPClient = &http.Client{Transport: m}
	}
}

// clientMarker is the transport of the HTTP client CompressedWatches and WrapTransport set, which NewCluster
// replaces with the HTTP client it describes.
type clientMarker struct {
	compressed bool
	wraps      []transport.WrapperFunc
}

// markerOf returns the marker of o's HTTP client, or a new one if o has none or another client.
func markerOf(o *cluster.Options) clientMarker {
	if o.HTTPClient != nil {
		if m, ok := o.HTTPClient.Transport.(clientMarker); ok {
			return m
		}
	}
	return clientMarker{}
}

func (clientMarker) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("clusters.CompressedWatches and clusters.WrapTransport are options of clusters.NewCluster, not of cluster.New")
}

// httpClientOption gives the cluster an HTTP client of cfg whose requests open new connections one at a time and
// share them (SharedFirstConnection) and whose watches are uncompressed (UncompressedWatches, unless cfg disables compression
// already), unless an option set cluster.Options.HTTPClient. After CompressedWatches or WrapTransport, it gives it
// the HTTP client of cfg those options describe.
func httpClientOption(cfg *rest.Config) cluster.Option {
	return func(o *cluster.Options) {
		var m clientMarker
		if o.HTTPClient != nil {
			var ok bool
			if m, ok = o.HTTPClient.Transport.(clientMarker); !ok {
				return
			}
			o.HTTPClient = nil
		}
		wrapped := rest.CopyConfig(cfg)
		if cfg.Transport == nil {
			// Innermost, right above the transport client-go builds, so that every other round tripper still sees
			// every request. A transport of the caller's (cfg.Transport) is left to do what it does.
			wrapped.WrapTransport = transport.Wrappers(pooledConnections, wrapped.WrapTransport)
		}
		wrapped.Wrap(SharedFirstConnection)
		if !m.compressed && !cfg.DisableCompression {
			wrapped.Wrap(UncompressedWatches)
		}
		for _, wrap := range m.wraps {
			wrapped.Wrap(wrap)
		}
		if c, err := rest.HTTPClientFor(wrapped); err == nil {
			o.HTTPClient = c
		} // else cluster.New builds its client from cfg and reports the same error, naming the cluster.
	}
}
