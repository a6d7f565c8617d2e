// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// http2Server is a TLS server speaking HTTP/2 that answers every request with 200 and counts the connections it
// accepts.
func http2Server(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var accepted atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
	}))
	srv.EnableHTTP2 = true
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			accepted.Add(1)
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, &accepted
}

// newTransport returns a new transport trusting srv, speaking HTTP/2, as client-go's are.
func newTransport(srv *httptest.Server) *http.Transport {
	t := srv.Client().Transport.(*http.Transport).Clone()
	t.ForceAttemptHTTP2 = true
	return t
}

// fanOut sends n requests to url through rt at once and returns the errors.
func fanOut(rt http.RoundTripper, url string, n int) []error {
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			<-start
			req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
			if err != nil {
				errs[i] = err
				return
			}
			resp, err := rt.RoundTrip(req)
			if err != nil {
				errs[i] = err
				return
			}
			_ = resp.Body.Close()
		})
	}
	close(start)
	wg.Wait()
	return errs
}

// Requests that go out together through a transport with no connection yet share the one the first opens; through
// several wrappers of the same transport too (clusters sharing client-go's cached transport). Without the wrapper,
// the same requests open a connection each.
func TestSharedFirstConnection(t *testing.T) {
	const n = 50
	srv, accepted := http2Server(t)
	transport := newTransport(srv)
	defer transport.CloseIdleConnections()

	wrappers := make([]http.RoundTripper, 0, 5)
	for range 5 {
		wrappers = append(wrappers, SharedFirstConnection(transport))
	}
	var wg sync.WaitGroup
	for _, rt := range wrappers {
		wg.Go(func() {
			for _, err := range fanOut(rt, srv.URL, n/len(wrappers)) {
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if got := accepted.Load(); got != 1 {
		t.Errorf("%d requests through a cold transport opened %d connections, want 1", n, got)
	}

	// Once connected, requests go at once, over the same connection.
	for _, err := range fanOut(wrappers[0], srv.URL, n) {
		if err != nil {
			t.Error(err)
		}
	}
	if got := accepted.Load(); got != 1 {
		t.Errorf("after the first connection, %d connections in all, want 1", got)
	}

	// The control: the same transport, cold again, without the wrapper.
	bare, bareAccepted := http2Server(t)
	plain := newTransport(bare)
	defer plain.CloseIdleConnections()
	_ = fanOut(plain, bare.URL, n)
	t.Logf("without SharedFirstConnection, %d requests opened %d connections", n, bareAccepted.Load())
}

// When the first request fails, the requests waiting for it take their turns (and fail too) instead of waiting for
// ever, and the host does not count as connected.
func TestSharedFirstConnectionAfterAFailure(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	url := "https://" + addr
	_ = l.Close() // nothing listens there now: every dial is refused

	transport := &http.Transport{ForceAttemptHTTP2: true}
	rt := SharedFirstConnection(transport)
	for i, err := range fanOut(rt, url, 20) {
		if err == nil {
			t.Errorf("request %d to a closed port succeeded", i)
		}
	}
	if h := hostOf(transport, addr); h.connected.Load() {
		t.Error("the host counts as connected after every request failed")
	}
}

// silentServer listens on a loopback address, accepts connections and never answers on them, until the test ends;
// it returns the address.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepting sync.WaitGroup
	conns := make(chan net.Conn, 10)
	accepting.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(conns)
				return
			}
			conns <- c // accepted, never answered
		}
	})
	t.Cleanup(func() {
		_ = l.Close()
		for c := range conns {
			_ = c.Close()
		}
		accepting.Wait()
	})
	return l.Addr().String()
}

// A request waiting for the first request's connection stops waiting when its own context ends; it is not held by
// a first request that never gets one (a server that accepts connections and never answers).
func TestSharedFirstConnectionWaiterCancelled(t *testing.T) {
	addr := silentServer(t)
	transport := &http.Transport{ForceAttemptHTTP2: true, TLSHandshakeTimeout: time.Minute}
	defer transport.CloseIdleConnections()
	rt := SharedFirstConnection(transport)
	url := "https://" + addr

	firstCtx, cancelFirst := context.WithCancel(t.Context())
	defer cancelFirst()
	firstDone := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(firstCtx, http.MethodGet, url, nil)
		resp, err := rt.RoundTrip(req)
		if err == nil {
			_ = resp.Body.Close()
		}
		firstDone <- err
	}()
	h := hostOf(transport, addr)
	if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.turn != nil, nil
	}); err != nil {
		t.Fatal("the first request never started opening a connection")
	}

	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := rt.RoundTrip(req)
	if err == nil {
		_ = resp.Body.Close()
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting request returned %v, want its context's deadline", err)
	}
	cancelFirst()
	if err := <-firstDone; err == nil {
		t.Error("the first request succeeded against a server that never answers")
	}
}

// A round tripper with no *http.Transport under it is passed every request as it is.
func TestSharedFirstConnectionWithoutTransport(t *testing.T) {
	inner := &countingRoundTripper{}
	rt := SharedFirstConnection(inner)
	for range 3 {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, "https://example.invalid/", nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	if inner.n.Load() != 3 {
		t.Errorf("inner round tripper saw %d requests, want 3", inner.n.Load())
	}
	if got := rt.(interface{ WrappedRoundTripper() http.RoundTripper }).WrappedRoundTripper(); got != inner {
		t.Errorf("WrappedRoundTripper() = %v, want the wrapped round tripper", got)
	}
}

type countingRoundTripper struct{ n atomic.Int64 }

func (c *countingRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return &http.Response{StatusCode: http.StatusOK, Request: req, Body: http.NoBody}, nil
}

// The state kept for a host goes once its transport is collected: the wrapper keeps no transport alive.
func TestSharedFirstConnectionForgetsCollectedTransports(t *testing.T) {
	srv, _ := http2Server(t)
	count := func() int {
		n := 0
		hosts.Range(func(key, _ any) bool {
			if key.(hostKey).host == srv.Listener.Addr().String() {
				n++
			}
			return true
		})
		return n
	}
	func() {
		transport := newTransport(srv)
		defer transport.CloseIdleConnections()
		for _, err := range fanOut(SharedFirstConnection(transport), srv.URL, 3) {
			if err != nil {
				t.Fatal(err)
			}
		}
	}()
	if count() != 1 {
		t.Fatalf("%d entries for the server's host, want 1", count())
	}
	if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		runtime.GC()
		return count() == 0, nil
	}); err != nil {
		t.Fatal("the host's entry outlived its transport")
	}
}

// blockingServer is a TLS server whose handlers hold every request until release is closed, as an API server holds
// a watch; it counts the connections it accepts and the requests it holds. With http2 it speaks HTTP/2 and allows
// maxStreams streams a connection, otherwise HTTP/1 only.
func blockingServer(t *testing.T, http2 bool, maxStreams int) (srv *httptest.Server, accepted, held *atomic.Int64, release func()) {
	t.Helper()
	accepted, held = &atomic.Int64{}, &atomic.Int64{}
	released := make(chan struct{})
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		held.Add(1)
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-released:
		case <-r.Context().Done():
		}
	}))
	srv.EnableHTTP2 = http2
	// Connections the client opened and closed unused end their handshakes with an error; that is expected here.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	if http2 {
		srv.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: maxStreams}
	}
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			accepted.Add(1)
		}
	}
	srv.StartTLS()
	var once sync.Once
	release = func() { once.Do(func() { close(released) }) }
	t.Cleanup(func() { release(); srv.Close() })
	return srv, accepted, held, release
}

// holdAll sends n requests to url through rt at once and waits until the server holds all of them; the returned
// function waits for their responses to end.
func holdAll(t *testing.T, rt http.RoundTripper, url string, n int, held *atomic.Int64) (waitForAll func()) {
	t.Helper()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
			if err != nil {
				t.Error(err)
				return
			}
			resp, err := rt.RoundTrip(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			_, _ = io.Copy(io.Discard, resp.Body)
		})
	}
	if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return held.Load() >= int64(n), nil
	}); err != nil {
		t.Fatalf("the server holds %d of %d requests", held.Load(), n)
	}
	return wg.Wait
}

// Long-lived requests (watches) that come together fill a connection to its server's limit of streams and then
// open new connections one at a time: 300 requests to a server allowing 100 streams a connection, as
// kube-apiserver does, open 3 connections, not one each. Without the line, every request that finds the
// connections full opens its own.
func TestSharedFirstConnectionOpensOneConnectionAtATimeWhenFull(t *testing.T) {
	const n, maxStreams = 300, 100
	srv, accepted, held, release := blockingServer(t, true, maxStreams)
	transport := newTransport(srv)
	defer transport.CloseIdleConnections()

	done := holdAll(t, SharedFirstConnection(transport), srv.URL, n, held)
	// A request already on its way when another starts opening a connection may open one too.
	if got, limit := accepted.Load(), int64(n/maxStreams+2); got > limit {
		t.Errorf("%d long-lived requests to a server allowing %d streams a connection opened %d connections, want at most %d",
			n, maxStreams, got, limit)
	}
	h := hostOf(transport, srv.Listener.Addr().String())
	h.mu.Lock()
	if h.turn != nil || len(h.line) > 0 || h.gated.Load() {
		t.Errorf("after every request has its connection: turn %v, %d in line, gated %v; want none, 0, false", h.turn, len(h.line), h.gated.Load())
	}
	h.mu.Unlock()
	release()
	done()

	// The control: the same requests without the wrapper.
	bare, bareAccepted, bareHeld, bareRelease := blockingServer(t, true, maxStreams)
	plain := newTransport(bare)
	defer plain.CloseIdleConnections()
	bareWait := holdAll(t, plain, bare.URL, n, bareHeld)
	t.Logf("without SharedFirstConnection, %d long-lived requests opened %d connections (with it: %d)", n, bareAccepted.Load(), accepted.Load())
	bareRelease()
	bareWait()
}

// A host that answers over HTTP/1 needs a connection a request: once its first connection shows that, requests
// go at once and all of them are held by the server together.
func TestSharedFirstConnectionLetsHTTP1RequestsGo(t *testing.T) {
	const n = 20
	srv, accepted, held, release := blockingServer(t, false, 0)
	transport := srv.Client().Transport.(*http.Transport).Clone()
	defer transport.CloseIdleConnections()

	done := holdAll(t, SharedFirstConnection(transport), srv.URL, n, held)
	if got := accepted.Load(); got != n {
		t.Errorf("%d long-lived HTTP/1 requests opened %d connections, want %d", n, got, n)
	}
	if h := hostOf(transport, srv.Listener.Addr().String()); h.protocol.Load() != protocolHTTP1 || h.gated.Load() {
		t.Errorf("host: HTTP/1 %v, gated %v; want true, false", h.protocol.Load() == protocolHTTP1, h.gated.Load())
	}
	release()
	done()
}

// A request does not wait in line for longer than its limit (maxTurnWait, shortened here): when the request ahead
// of it never gets a connection (a server that accepts and never answers), it goes on its own.
func TestSharedFirstConnectionWaitsInLineAtMostMaxTurnWait(t *testing.T) {
	addr := silentServer(t)
	transport := &http.Transport{ForceAttemptHTTP2: true, TLSHandshakeTimeout: time.Minute}
	defer transport.CloseIdleConnections()
	rt := &sharedFirstConnection{rt: transport, maxWait: 50 * time.Millisecond}
	url := "https://" + addr
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	var requests sync.WaitGroup
	defer requests.Wait()
	defer cancel()
	dialed := make(chan struct{}, 2)
	for range 2 {
		requests.Go(func() {
			trace := &httptrace.ClientTrace{ConnectStart: func(string, string) { dialed <- struct{}{} }}
			req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, url, nil)
			if resp, err := rt.RoundTrip(req); err == nil {
				_ = resp.Body.Close()
			}
		})
	}
	// The first request opens a connection that never completes; the second waits in line, then opens its own.
	for i := range 2 {
		select {
		case <-dialed:
		case <-time.After(30 * time.Second):
			t.Fatalf("%d of 2 requests opened a connection; the second waited in line for ever", i)
		}
	}
}
