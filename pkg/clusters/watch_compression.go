// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"errors"
	"net/http"

	"k8s.io/client-go/rest"
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
// HTTP client cluster.New would build. Only NewCluster understands it: a cluster built by cluster.New with it
// fails every request with an error that says so.
func CompressedWatches() cluster.Option {
	return func(o *cluster.Options) {
		o.HTTPClient = &http.Client{Transport: compressedWatchesMarker{}}
	}
}

// compressedWatchesMarker is the transport of the HTTP client CompressedWatches sets, which NewCluster replaces.
type compressedWatchesMarker struct{}

func (compressedWatchesMarker) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("clusters.CompressedWatches is an option of clusters.NewCluster, not of cluster.New")
}

// uncompressedWatchesOption gives the cluster an HTTP client of cfg whose watches are uncompressed
// (UncompressedWatches), unless an option set cluster.Options.HTTPClient or cfg disables compression already; after
// CompressedWatches, it gives it the plain HTTP client of cfg.
func uncompressedWatchesOption(cfg *rest.Config) cluster.Option {
	return func(o *cluster.Options) {
		keep := false
		if o.HTTPClient != nil {
			if _, keep = o.HTTPClient.Transport.(compressedWatchesMarker); !keep {
				return
			}
			o.HTTPClient = nil
		}
		if cfg.DisableCompression {
			return
		}
		wrapped := rest.CopyConfig(cfg)
		if !keep {
			wrapped.Wrap(UncompressedWatches)
		}
		if c, err := rest.HTTPClientFor(wrapped); err == nil {
			o.HTTPClient = c
		} // else cluster.New builds its client from cfg and reports the same error, naming the cluster.
	}
}
