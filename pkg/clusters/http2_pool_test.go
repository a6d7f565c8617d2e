// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
)

// clientGoTransport returns a transport trusting srv, configured for HTTP/2 the way client-go configures its
// transports (utilnet.SetTransportDefaults).
func clientGoTransport(srv interface{ Client() *http.Client }) *http.Transport {
	tlsConfig := srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	return utilnet.SetTransportDefaults(&http.Transport{TLSClientConfig: tlsConfig})
}

// closeIdle closes the idle connections of rt and of what it wraps.
func closeIdle(rt http.RoundTripper) { utilnet.CloseIdleConnectionsFor(rt) }

// The pool opens a connection only when the ones it has carry as many streams as the server allows, and one at
// a time: after the first request (over client-go's transport, which tells the host speaks HTTP/2), 300 long-lived
// requests (watches) to a server allowing 100 streams a connection open exactly 3 connections, whether they come
// one after the other or all at once. SharedFirstConnection alone opens up to 5 (and up to hundreds in a burst on
// connections already full); client-go's transport alone opens about one for every request that finds no room.
func TestPooledConnectionsOpenAsManyConnectionsAsTheStreamsNeed(t *testing.T) {
	const n, maxStreams = 300, 100
	srv, accepted, held, release := blockingServer(t, true, maxStreams)
	transport := clientGoTransport(srv)
	rt := SharedFirstConnection(pooledConnections(transport))
	defer closeIdle(rt)

	// The first request learns the protocol, over a connection of client-go's transport.
	resp, err := rt.RoundTrip(mustRequest(t, srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	firstConns := accepted.Load()
	_ = resp.Body.Close()
	if h := hostOf(transport, srv.Listener.Addr().String()); h.protocol.Load() != protocolHTTP2 {
		t.Fatalf("after the first request the host's protocol is %d, want HTTP/2 (%d)", h.protocol.Load(), protocolHTTP2)
	}
	if firstConns != 1 {
		t.Fatalf("the first request opened %d connections, want 1", firstConns)
	}
	done := holdAll(t, rt, srv.URL, n, held)
	if got, want := accepted.Load()-firstConns, int64(n/maxStreams); got != want {
		t.Errorf("%d long-lived requests to a server allowing %d streams a connection opened %d connections, want %d",
			n, maxStreams, got, want)
	}
	if loadPool(transport) == nil {
		t.Error("the transport has no pool")
	}
	release()
	done()

	// The control: the same burst over client-go's transport alone, once a first request has connected.
	bare, bareAccepted, bareHeld, bareRelease := blockingServer(t, true, maxStreams)
	plain := clientGoTransport(bare)
	defer plain.CloseIdleConnections()
	if resp, err := plain.RoundTrip(mustRequest(t, bare.URL)); err == nil {
		_ = resp.Body.Close()
	}
	bareWait := holdAll(t, plain, bare.URL, n, bareHeld)
	t.Logf("over client-go's transport alone, %d long-lived requests opened %d connections (pooled: %d)",
		n, bareAccepted.Load()-1, accepted.Load()-firstConns)
	bareRelease()
	bareWait()
}

// mustRequest returns a GET request of url bound to the test's context.
func mustRequest(t *testing.T, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// A host that answers over HTTP/1 is never pooled: every request goes through client-go's transport, which opens
// a connection for each long-lived request, and the transport gets no pool.
func TestPooledConnectionsLeaveHTTP1HostsToTheTransport(t *testing.T) {
	const n = 10
	srv, accepted, held, release := blockingServer(t, false, 0)
	transport := srv.Client().Transport.(*http.Transport).Clone()
	rt := pooledConnections(transport)
	defer closeIdle(rt)

	done := holdAll(t, rt, srv.URL, n, held)
	if got := accepted.Load(); got != n {
		t.Errorf("%d long-lived HTTP/1 requests opened %d connections, want %d", n, got, n)
	}
	if h := hostOf(transport, srv.Listener.Addr().String()); h.protocol.Load() != protocolHTTP1 {
		t.Errorf("the host's protocol is %d, want HTTP/1 (%d)", h.protocol.Load(), protocolHTTP1)
	}
	if loadPool(transport) != nil {
		t.Error("a transport whose host speaks HTTP/1 got a pool")
	}
	release()
	done()
}

// A host whose first connection spoke HTTP/2 and that later answers without it (a proxy or server swapped behind
// the same address) is sent the request through client-go's transport, and from then on counts as HTTP/1.
func TestPooledConnectionsFallBackWhenTheHostStopsSpeakingHTTP2(t *testing.T) {
	srv, _, _, release := blockingServer(t, false, 0)
	release()
	transport := srv.Client().Transport.(*http.Transport).Clone()
	rt := pooledConnections(transport)
	defer closeIdle(rt)
	h := hostOf(transport, srv.Listener.Addr().String())
	h.protocol.Store(protocolHTTP2)

	resp, err := rt.RoundTrip(mustRequest(t, srv.URL))
	if err != nil {
		t.Fatalf("request to a host that stopped speaking HTTP/2: %v", err)
	}
	_ = resp.Body.Close()
	if resp.ProtoMajor != 1 {
		t.Errorf("the response came over HTTP/%d, want HTTP/1", resp.ProtoMajor)
	}
	if h.protocol.Load() != protocolHTTP1 {
		t.Errorf("the host's protocol is %d, want HTTP/1 (%d)", h.protocol.Load(), protocolHTTP1)
	}
}

// Requests the transport sends to a proxy, and requests that ask to close their connection, are not pooled; nor
// are those of transports that dial TLS themselves or do not keep connections alive.
func TestPooledConnectionsTakeOnlyDirectRequests(t *testing.T) {
	direct := newConnectionPool(&http.Transport{})
	req := mustRequest(t, "https://example.invalid/api")
	if !direct.takes(req) {
		t.Error("a direct request to a transport without proxy is not pooled")
	}
	closing := req.Clone(t.Context())
	closing.Close = true
	if direct.takes(closing) {
		t.Error("a request asking to close its connection is pooled")
	}
	proxied := newConnectionPool(&http.Transport{Proxy: func(*http.Request) (*url.URL, error) {
		return url.Parse("http://proxy.invalid:3128")
	}})
	if proxied.takes(req) {
		t.Error("a request sent through a proxy is pooled")
	}
	bypassed := newConnectionPool(&http.Transport{Proxy: func(*http.Request) (*url.URL, error) { return nil, nil }})
	if !bypassed.takes(req) {
		t.Error("a request the proxy function sends directly is not pooled")
	}
	for name, tr := range map[string]*http.Transport{
		"DialTLSContext":    {DialTLSContext: func(context.Context, string, string) (net.Conn, error) { return nil, nil }},
		"DisableKeepAlives": {DisableKeepAlives: true},
	} {
		if newConnectionPool(tr).takes(req) {
			t.Errorf("a transport with %s pools its requests", name)
		}
	}
}

// The pool is configured as client-go's transport: its TLS configuration (a copy), compression, idle timeout and
// client-go's HTTP/2 health check, which the environment overrides as it does client-go's.
func TestPooledConnectionsAreConfiguredFromTheTransport(t *testing.T) {
	t.Setenv("HTTP2_PING_TIMEOUT_SECONDS", "7")
	tlsConfig := &tls.Config{ServerName: "member.example", MinVersion: tls.VersionTLS12}
	pool := newConnectionPool(&http.Transport{TLSClientConfig: tlsConfig, DisableCompression: true, IdleConnTimeout: 42 * time.Second})
	h2 := pool.h2
	if h2.TLSClientConfig == tlsConfig || h2.TLSClientConfig.ServerName != "member.example" {
		t.Errorf("TLS configuration %p (server name %q), want a copy of %p", h2.TLSClientConfig, h2.TLSClientConfig.ServerName, tlsConfig)
	}
	if !h2.DisableCompression || h2.IdleConnTimeout != 42*time.Second {
		t.Errorf("compression disabled %v, idle timeout %v; want true, 42s", h2.DisableCompression, h2.IdleConnTimeout)
	}
	if h2.ReadIdleTimeout != 30*time.Second || h2.PingTimeout != 7*time.Second {
		t.Errorf("health check after %v, answered within %v; want 30s and 7s", h2.ReadIdleTimeout, h2.PingTimeout)
	}
}

// The pool of a transport goes, its idle connections closed, once the transport is collected.
func TestPooledConnectionsForgetCollectedTransports(t *testing.T) {
	srv, _, _, release := blockingServer(t, true, 100)
	release()
	count := func() int {
		n := 0
		pools.Range(func(any, any) bool { n++; return true })
		return n
	}
	before := count()
	func() {
		transport := clientGoTransport(srv)
		rt := pooledConnections(transport)
		defer closeIdle(rt)
		for range 2 {
			resp, err := rt.RoundTrip(mustRequest(t, srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
		}
		if loadPool(transport) == nil {
			t.Fatal("the transport has no pool after its host answered over HTTP/2")
		}
	}()
	if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		runtime.GC()
		return count() <= before, nil
	}); err != nil {
		t.Fatal("the pool outlived its transport")
	}
}

// countingTransport is a caller's own transport: it counts the requests it sends, and offers the *http.Transport it
// sends them with as WrappedRoundTripper, as many wrappers do.
type countingTransport struct {
	inner *http.Transport
	sent  atomic.Int64
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.sent.Add(1)
	return c.inner.RoundTrip(req)
}

func (c *countingTransport) WrappedRoundTripper() http.RoundTripper { return c.inner }

// The pool goes only above the transport client-go builds: a transport of the caller's (rest.Config.Transport)
// sends every request of the cluster's HTTP client, even one that offers the *http.Transport beneath it, and even
// once the host is known to speak HTTP/2.
func TestPooledConnectionsLeaveTheCallersTransportAlone(t *testing.T) {
	srv, _, _, release := blockingServer(t, true, 100)
	release()
	own := &countingTransport{inner: clientGoTransport(srv)}
	defer own.inner.CloseIdleConnections()
	var o cluster.Options
	httpClientOption(&rest.Config{Host: srv.URL, Transport: own})(&o)
	if o.HTTPClient == nil {
		t.Fatal("no HTTP client")
	}
	const n = 5
	for range n {
		resp, err := o.HTTPClient.Do(mustRequest(t, srv.URL))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	if got := own.sent.Load(); got != n {
		t.Errorf("the caller's transport sent %d of %d requests", got, n)
	}
	if loadPool(own.inner) != nil {
		t.Error("the transport beneath the caller's got a pool")
	}
}
