// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"net/http"
	"net/http/httptrace"
	"runtime"
	"sync"
	"sync/atomic"
	"weak"
)

// SharedFirstConnection wraps rt so that, among the requests to one host through the same underlying
// *http.Transport, the first opens the connection and the others wait for it: a request that comes while the
// first is still connecting waits until that request has its connection (or has failed, or its own context has
// ended), then goes, and over HTTP/2 shares the connection. Once a request has had a connection to the host, every
// later one goes at once.
//
// Without it, clusters that share client-go's transport (their rest.Configs differ only in what client-go's
// transport cache ignores: the path of the host, the name, the credentials of a bearer token...) and start together
// each open a connection of their own, TLS handshake included, and all but one are closed as soon as they are
// established: a fleet of 1,000 clusters behind one proxy or gateway costs that proxy 1,000 handshakes at once, and
// the controller as many. NewCluster applies it to every cluster it builds; use it as a rest.Config's
// WrapTransport (cfg.Wrap(SharedFirstConnection)) to do the same for a client of your own.
//
// It keys hosts by the innermost round tripper it can reach through WrappedRoundTripper (client-go's wrappers all
// offer it); when that is not an *http.Transport it passes every request on as it is. It holds no reference that
// keeps a transport alive.
func SharedFirstConnection(rt http.RoundTripper) http.RoundTripper {
	return &sharedFirstConnection{rt: rt}
}

type sharedFirstConnection struct {
	rt http.RoundTripper
	// transport is the innermost *http.Transport under rt, found on the first request; nil if there is none.
	transport atomic.Pointer[http.Transport]
	found     atomic.Bool
}

// WrappedRoundTripper returns the round tripper it wraps.
func (s *sharedFirstConnection) WrappedRoundTripper() http.RoundTripper { return s.rt }

// RoundTrip sends req once the host has a connection, or is given one by req itself.
func (s *sharedFirstConnection) RoundTrip(req *http.Request) (*http.Response, error) {
	t := s.innermost()
	if t == nil || req.URL == nil {
		return s.rt.RoundTrip(req)
	}
	h := hostOf(t, req.URL.Host)
	if h.connected.Load() {
		return s.rt.RoundTrip(req)
	}
	opening, first := h.await()
	if !first {
		select {
		case <-opening:
		case <-req.Context().Done():
		}
		return s.rt.RoundTrip(req)
	}
	trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { h.opened(opening, true) }}
	resp, err := s.rt.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	h.opened(opening, err == nil)
	return resp, err
}

// innermost returns the *http.Transport under s.rt, nil if there is none.
func (s *sharedFirstConnection) innermost() *http.Transport {
	if s.found.Load() {
		return s.transport.Load()
	}
	rt := s.rt
	for range 64 {
		if t, ok := rt.(*http.Transport); ok {
			s.transport.Store(t)
			break
		}
		w, ok := rt.(interface{ WrappedRoundTripper() http.RoundTripper })
		if !ok {
			break
		}
		rt = w.WrappedRoundTripper()
	}
	s.found.Store(true)
	return s.transport.Load()
}

// hostKey names a host reached through a transport, without keeping the transport alive.
type hostKey struct {
	transport weak.Pointer[http.Transport]
	host      string
}

// connectingHost is the state of a host reached through a transport.
type connectingHost struct {
	// connected is set once a request has had a connection to the host.
	connected atomic.Bool

	mu sync.Mutex
	// opening is closed when the request opening the connection has one or has failed; nil when no request is
	// opening one.
	opening chan struct{}
}

// hosts holds a connectingHost per hostKey; an entry goes when its transport is collected.
var hosts sync.Map

// hostOf returns the state of host through t, creating it on first use.
func hostOf(t *http.Transport, host string) *connectingHost {
	key := hostKey{transport: weak.Make(t), host: host}
	if h, ok := hosts.Load(key); ok {
		return h.(*connectingHost)
	}
	h, loaded := hosts.LoadOrStore(key, &connectingHost{})
	if !loaded {
		runtime.AddCleanup(t, func(k hostKey) { hosts.Delete(k) }, key)
	}
	return h.(*connectingHost)
}

// await returns the channel closed when the connection being opened is there, and whether the caller is the one
// to open it (then the caller must call opened with that channel).
func (h *connectingHost) await() (opening chan struct{}, first bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.opening != nil {
		return h.opening, false
	}
	h.opening = make(chan struct{})
	return h.opening, true
}

// opened ends the opening of a connection: the requests waiting for it go, and, if connected, every later request
// goes at once. It is called once the opening request has a connection and again when it returns; the second call
// only records its outcome.
func (h *connectingHost) opened(opening chan struct{}, connected bool) {
	if connected {
		h.connected.Store(true)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.opening == opening {
		h.opening = nil
		close(opening)
	}
}
