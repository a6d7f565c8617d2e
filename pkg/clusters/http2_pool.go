// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"
	"weak"

	"golang.org/x/net/http2"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// pooledHTTP2 is the innermost round tripper of the clusters NewCluster builds, right above client-go's transport
// (base). Once a host has answered over HTTP/2 through that transport, pooledHTTP2 sends the host's requests over
// connections of its own, from one HTTP/2 connection pool per transport, which opens a new connection to a host
// only when every connection it holds to the host carries as many streams as the server allows, and then one at a
// time: the requests that find no room wait for that one connection and take its streams, and only those that still
// find none open the next. A burst of requests to a host whose connections are full (watches hold their streams
// for as long as they run) opens as many connections as the burst needs.
//
// client-go's transport does not: its HTTP/2 connections are dialled by net/http, which dials one connection for
// every request that finds the connections full, and keeps one of them, so that a burst of n requests costs up to
// n TLS handshakes on both sides. SharedFirstConnection lines up the requests while a connection opens, but cannot
// see the streams the transport counts; the pool here is the transport's own (golang.org/x/net/http2's, the
// HTTP/2 implementation client-go configures), so it never misjudges the room a connection has.
//
// The connections are made as client-go's transport makes them: its dialer (which client-go uses to close them when
// a client certificate rotates), its TLS configuration (certificates, CAs, server name, the callbacks of rotating
// credentials), its TLS handshake and idle timeouts, its compression setting, and client-go's HTTP/2 health check
// (a ping after 30 s without a frame, 15 s to answer, or HTTP2_READ_IDLE_TIMEOUT_SECONDS and
// HTTP2_PING_TIMEOUT_SECONDS). Requests that go through a proxy, requests of plain HTTP, hosts that answered over
// HTTP/1 and transports that dial TLS themselves go through base as they are; a transport of the caller's
// (rest.Config.Transport) gets no pool at all (see httpClientOption). When the CA of a rest.Config is
// reloaded from its file, client-go swaps the transport under base, and the pool of the new transport is used.
type pooledHTTP2 struct {
	base http.RoundTripper
}

// pooledConnections wraps rt, the transport client-go built for a rest.Config, in pooledHTTP2.
func pooledConnections(rt http.RoundTripper) http.RoundTripper {
	return &pooledHTTP2{base: rt}
}

// errNotHTTP2 is returned by a pool's dial when the host did not choose HTTP/2: the request goes through base.
var errNotHTTP2 = errors.New("the host did not negotiate HTTP/2")

// WrappedRoundTripper returns client-go's transport.
func (p *pooledHTTP2) WrappedRoundTripper() http.RoundTripper { return p.base }

// CloseIdleConnections closes the idle connections of the pool and of client-go's transport.
func (p *pooledHTTP2) CloseIdleConnections() {
	if t := transportUnder(p.base); t != nil {
		if pool := loadPool(t); pool != nil {
			pool.h2.CloseIdleConnections()
		}
	}
	utilnet.CloseIdleConnectionsFor(p.base)
}

// RoundTrip sends req over the pool once its host is known to speak HTTP/2 through the transport, and through
// base otherwise, learning from the connection req gets whether the host does.
func (p *pooledHTTP2) RoundTrip(req *http.Request) (*http.Response, error) {
	t := transportUnder(p.base)
	if t == nil || req.URL == nil || req.URL.Scheme != "https" {
		return p.base.RoundTrip(req)
	}
	h := hostOf(t, req.URL.Host)
	switch h.protocol.Load() {
	case protocolHTTP1:
		return p.base.RoundTrip(req)
	case protocolHTTP2:
		// The first connection told us the protocol after net/http had set the transport up for its first
		// request, in the goroutine that stored it: the transport's fields are settled, and read without a race.
		if pool := poolOf(t); pool.takes(req) {
			resp, err := pool.h2.RoundTrip(req)
			if !errors.Is(err, errNotHTTP2) {
				return resp, err
			}
			h.protocol.Store(protocolHTTP1)
		}
		return p.base.RoundTrip(req)
	}
	trace := &httptrace.ClientTrace{GotConn: h.learnProtocol}
	return p.base.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
}

// learnProtocol records, from the first connection a request to the host gets, whether the host speaks HTTP/2.
func (h *connectingHost) learnProtocol(info httptrace.GotConnInfo) {
	if h.protocol.Load() != protocolUnknown {
		return
	}
	protocol := protocolHTTP1
	if tc, ok := info.Conn.(*tls.Conn); ok && tc.ConnectionState().NegotiatedProtocol == http2.NextProtoTLS {
		protocol = protocolHTTP2
	}
	h.protocol.CompareAndSwap(protocolUnknown, protocol)
}

// transportUnder returns the *http.Transport rt is or delegates to (client-go's holder of a transport whose CA is
// reloaded offers it as WrappedRoundTripper), nil if there is none.
func transportUnder(rt http.RoundTripper) *http.Transport {
	for range 8 {
		switch r := rt.(type) {
		case *http.Transport:
			return r
		case utilnet.RoundTripperWrapper:
			rt = r.WrappedRoundTripper()
		default:
			return nil
		}
	}
	return nil
}

// connectionPool is the HTTP/2 pool of one transport.
type connectionPool struct {
	h2 *http2.Transport
	// proxy is the transport's; requests it sends to a proxy are not pooled.
	proxy func(*http.Request) (*url.URL, error)
	// usable is false for transports that dial TLS themselves or do not keep connections alive.
	usable bool
}

// pools holds the pool of each transport, by a weak pointer; a pool goes, its idle connections closed, when its
// transport is collected.
var pools sync.Map

// loadPool returns the pool of t, nil if it has none yet.
func loadPool(t *http.Transport) *connectionPool {
	if p, ok := pools.Load(weak.Make(t)); ok {
		return p.(*connectionPool)
	}
	return nil
}

// poolOf returns the pool of t, making it on first use. t's fields must be settled (see RoundTrip).
func poolOf(t *http.Transport) *connectionPool {
	if p := loadPool(t); p != nil {
		return p
	}
	key := weak.Make(t)
	p, loaded := pools.LoadOrStore(key, newConnectionPool(t))
	pool := p.(*connectionPool)
	if !loaded {
		runtime.AddCleanup(t, func(k weak.Pointer[http.Transport]) {
			if p, ok := pools.LoadAndDelete(k); ok {
				p.(*connectionPool).h2.CloseIdleConnections()
			}
		}, key)
	}
	return pool
}

// takes reports whether req goes over the pool: the transport is usable and does not send req to a proxy.
func (p *connectionPool) takes(req *http.Request) bool {
	if !p.usable || req.Close {
		return false
	}
	if p.proxy != nil {
		if u, err := p.proxy(req); err != nil || u != nil {
			return false
		}
	}
	return true
}

// newConnectionPool returns the pool of t, configured from t. Its closures hold none of t, so that t can be
// collected.
func newConnectionPool(t *http.Transport) *connectionPool {
	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	handshakeTimeout := t.TLSHandshakeTimeout
	var tlsConfig *tls.Config
	if t.TLSClientConfig != nil {
		tlsConfig = t.TLSClientConfig.Clone()
	}
	h2 := &http2.Transport{
		TLSClientConfig:    tlsConfig,
		DisableCompression: t.DisableCompression,
		IdleConnTimeout:    t.IdleConnTimeout,
		ReadIdleTimeout:    secondsFromEnv("HTTP2_READ_IDLE_TIMEOUT_SECONDS", 30),
		PingTimeout:        secondsFromEnv("HTTP2_PING_TIMEOUT_SECONDS", 15),
		DialTLSContext: func(ctx context.Context, network, addr string, cfg *tls.Config) (net.Conn, error) {
			return dialHTTP2(ctx, dial, handshakeTimeout, network, addr, cfg)
		},
	}
	if c := t.HTTP2; c != nil {
		if c.SendPingTimeout != 0 {
			h2.ReadIdleTimeout = c.SendPingTimeout
		}
		if c.PingTimeout != 0 {
			h2.PingTimeout = c.PingTimeout
		}
		h2.WriteByteTimeout = c.WriteByteTimeout
	}
	return &connectionPool{
		h2:     h2,
		proxy:  t.Proxy,
		usable: t.DialTLSContext == nil && t.DialTLS == nil && !t.DisableKeepAlives, //nolint:staticcheck // DialTLS is still honoured by net/http.
	}
}

// dialHTTP2 opens a TLS connection to addr with dial and cfg, and returns it if the server chose HTTP/2, or
// errNotHTTP2.
func dialHTTP2(ctx context.Context, dial func(context.Context, string, string) (net.Conn, error), handshakeTimeout time.Duration,
	network, addr string, cfg *tls.Config) (net.Conn, error) {
	raw, err := dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(cfg.NextProtos, "http/1.1") {
		// A server without HTTP/2 then answers with HTTP/1.1 instead of refusing the handshake, and the request
		// goes through client-go's transport.
		cfg = cfg.Clone()
		cfg.NextProtos = append(cfg.NextProtos, "http/1.1")
	}
	conn := tls.Client(raw, cfg)
	handshakeCtx := ctx
	if handshakeTimeout > 0 {
		var cancel context.CancelFunc
		handshakeCtx, cancel = context.WithTimeout(ctx, handshakeTimeout)
		defer cancel()
	}
	if err := conn.HandshakeContext(handshakeCtx); err != nil {
		_ = raw.Close()
		return nil, err
	}
	if conn.ConnectionState().NegotiatedProtocol != http2.NextProtoTLS {
		_ = conn.Close()
		return nil, errNotHTTP2
	}
	return conn, nil
}

// secondsFromEnv returns the duration in whole seconds that the environment variable holds, or def seconds if it is
// unset or not a number, as client-go reads its HTTP/2 health-check settings.
func secondsFromEnv(name string, def int) time.Duration {
	n := def
	if s := os.Getenv(name); s != "" {
		if v, err := strconv.Atoi(s); err == nil {
			n = v
		}
	}
	return time.Duration(n) * time.Second
}
