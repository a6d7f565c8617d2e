// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"crypto/tls"
	"net/http"
	"net/http/httptrace"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"weak"
)

// SharedFirstConnection wraps rt so that requests to one host through the same underlying *http.Transport open
// new connections one at a time, and share over HTTP/2 the connections they open, instead of each opening its
// own when they come together.
//
// A request opens a connection when the host has none yet, or when every connection to it carries as many
// streams as the server allows (kube-apiserver allows 100 per connection; every open watch holds one). From the
// moment one request is opening a connection until the host has one with room again, the requests that come
// wait in line and go one at a time: each goes once the one before it has a connection (or has failed, or has
// given up), so that a request that finds room on the new connection takes it, and only one that finds none opens
// the next. No request waits longer than two seconds, or after its own context has ended; then it goes on its
// own. Once the line is empty, requests go at once again. A host that answers over HTTP/1 (one request a
// connection) is never made to wait after its first connection.
//
// Under the clusters NewCluster builds, client-go's transport has NewCluster's HTTP/2 connection pool above it,
// which opens a host's connections one at a time by itself once the host has answered over HTTP/2: there the line
// is kept only until the host's first connection, and then everyone in it goes at once, as every later request
// does. A line that requests keep joining would otherwise let them go one at a time, each once the one before it
// was scheduled and had its stream, for as long as requests come: the first requests of a thousand clusters
// starting together on a busy machine.
//
// Without it, clusters that share client-go's transport (their rest.Configs differ only in what client-go's
// transport cache ignores: the path of the host, the name, the credentials of a bearer token...) and start together
// each open a connection of their own, TLS handshake included, and all but a few are closed as soon as they are
// established: a fleet of 1,000 clusters behind one proxy or gateway costs that proxy and the controller hundreds
// of handshakes at once, when it starts and again whenever its watches fill the connections it has. NewCluster
// applies it to every cluster it builds, and beneath it, right above client-go's transport, a connection pool that
// takes over a host's requests once the host has answered over HTTP/2 and opens the next connection only when the
// transport's own count of streams says the connections are full; use SharedFirstConnection as a rest.Config's
// WrapTransport (cfg.Wrap(SharedFirstConnection)) to line up the first connection for a client of your own.
//
// It keys hosts by the innermost round tripper it can reach through WrappedRoundTripper (client-go's wrappers all
// offer it); when that is not an *http.Transport it passes every request on as it is. It learns when a request
// opens or gets a connection from an httptrace.ClientTrace added to the request's context, composed with any
// trace already there. It holds no reference that keeps a transport alive.
func SharedFirstConnection(rt http.RoundTripper) http.RoundTripper {
	return &sharedFirstConnection{rt: rt}
}

// maxTurnWait is how long a request waits in line before it goes on its own.
const maxTurnWait = 2 * time.Second

type sharedFirstConnection struct {
	rt http.RoundTripper
	// maxWait, if not zero, replaces maxTurnWait (in tests).
	maxWait time.Duration
	// transport is the innermost *http.Transport under rt, found on the first request; nil if there is none.
	transport atomic.Pointer[http.Transport]
	// pooled is set when NewCluster's HTTP/2 connection pool is between rt and the transport.
	pooled atomic.Bool
	found  atomic.Bool
}

// WrappedRoundTripper returns the round tripper it wraps.
func (s *sharedFirstConnection) WrappedRoundTripper() http.RoundTripper { return s.rt }

// RoundTrip sends req when its turn comes (at once, unless another request to the host is opening a connection),
// and tells the host when req has a connection.
func (s *sharedFirstConnection) RoundTrip(req *http.Request) (*http.Response, error) {
	t := s.innermost()
	if t == nil || req.URL == nil {
		return s.rt.RoundTrip(req)
	}
	h := hostOf(t, req.URL.Host)
	pooled := s.pooled.Load()
	if p := h.protocol.Load(); p == protocolHTTP1 || p == protocolHTTP2 && pooled {
		return s.rt.RoundTrip(req)
	}
	r := &request{host: h, pooled: pooled}
	if h.gated.Load() || !h.connected.Load() {
		maxWait := s.maxWait
		if maxWait == 0 {
			maxWait = maxTurnWait
		}
		h.awaitTurn(req, r, maxWait)
	}
	resp, err := s.rt.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), r.trace())))
	r.settled()
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
		if _, ok := rt.(*pooledHTTP2); ok {
			s.pooled.Store(true)
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
	// protocol is what the first connection to the host spoke; once it is protocolHTTP1, requests go at once.
	protocol atomic.Int32
	// gated mirrors turn != nil || len(line) > 0 for the lock-free check; setGatedLocked keeps it.
	gated atomic.Bool

	mu sync.Mutex
	// turn is the request that went last and has neither a connection nor an outcome yet; nil if none.
	turn *request
	// line holds the requests waiting for their turn, first come first.
	line []*request
}

// The protocols a host's connections speak, as connectingHost.protocol records them.
const (
	protocolUnknown int32 = iota
	protocolHTTP2
	protocolHTTP1
)

// setGatedLocked brings gated in line with turn and line; h.mu must be held.
func (h *connectingHost) setGatedLocked() { h.gated.Store(h.turn != nil || len(h.line) > 0) }

// request is one request's passage through a host.
type request struct {
	host *connectingHost
	// ready is closed when it is the request's turn; nil unless the request waited in line.
	ready chan struct{}
	// done is set once the request has a connection or has returned.
	done bool // guarded by host.mu
	// pooled is set when the request goes through NewCluster's HTTP/2 connection pool.
	pooled bool
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

// awaitTurn returns when it is r's turn, when r has waited maxWait, or when req's context has ended. A request
// that finds nobody ahead goes at once, and takes the turn if the host has no connection yet.
func (h *connectingHost) awaitTurn(req *http.Request, r *request, maxWait time.Duration) {
	h.mu.Lock()
	if h.turn == nil && len(h.line) == 0 {
		if !h.connected.Load() {
			h.turn = r
			h.setGatedLocked()
		}
		h.mu.Unlock()
		return
	}
	r.ready = make(chan struct{})
	h.line = append(h.line, r)
	h.mu.Unlock()

	timer := time.NewTimer(maxWait)
	defer timer.Stop()
	select {
	case <-r.ready:
	case <-timer.C:
		h.leaveLine(r)
	case <-req.Context().Done():
		h.leaveLine(r)
	}
}

// leaveLine takes r out of the line; if r's turn came meanwhile, r keeps it.
func (h *connectingHost) leaveLine(r *request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, w := range h.line {
		if w == r {
			h.line = append(h.line[:i], h.line[i+1:]...)
			h.setGatedLocked()
			return
		}
	}
}

// trace returns the hooks through which r learns that it opens a connection and that it has one.
func (r *request) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		ConnectStart: func(string, string) { r.opening() },
		GotConn:      r.gotConn,
	}
}

// opening records that r is opening a connection (the transport had none with room for it): if nobody holds
// the turn, r takes it, and requests that come after it wait in line.
func (r *request) opening() {
	h := r.host
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.done || h.turn != nil {
		return
	}
	h.turn = r
	h.setGatedLocked()
}

// gotConn records that r has a connection, and whether the host speaks HTTP/2.
func (r *request) gotConn(info httptrace.GotConnInfo) {
	h := r.host
	h.connected.Store(true)
	if h.protocol.Load() == protocolUnknown {
		protocol := protocolHTTP1
		if tc, ok := info.Conn.(*tls.Conn); ok && tc.ConnectionState().NegotiatedProtocol == "h2" {
			protocol = protocolHTTP2
		}
		h.protocol.CompareAndSwap(protocolUnknown, protocol)
	}
	r.settled()
}

// settled records that r has a connection or has returned: its turn, if it held it, passes to the next request in
// line. On a host that speaks HTTP/1 everyone in line goes.
func (r *request) settled() {
	h := r.host
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.done {
		return
	}
	r.done = true
	if h.protocol.Load() == protocolHTTP1 {
		for _, w := range h.line {
			close(w.ready)
		}
		h.line, h.turn = nil, nil
		h.setGatedLocked()
		return
	}
	if h.protocol.Load() == protocolHTTP2 {
		h.releasePooledLocked()
	}
	if h.turn != r {
		h.setGatedLocked()
		return
	}
	h.turn = nil
	if len(h.line) > 0 {
		h.turn = h.line[0]
		h.line[0] = nil
		h.line = h.line[1:]
		close(h.turn.ready)
	}
	h.setGatedLocked()
}

// releasePooledLocked lets every request in line that goes through NewCluster's HTTP/2 connection pool go: the
// pool opens the host's next connection itself, one at a time. The others keep their places. h.mu must be held.
func (h *connectingHost) releasePooledLocked() {
	kept := h.line[:0]
	for _, w := range h.line {
		if w.pooled {
			close(w.ready)
			continue
		}
		kept = append(kept, w)
	}
	clear(h.line[len(kept):])
	h.line = kept
}
