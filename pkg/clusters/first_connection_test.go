// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
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

// When the first request fails, the requests waiting for it go on their own (and fail too) instead of waiting for
// ever, and a later request tries again.
func TestSharedFirstConnectionAfterAFailure(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "https://" + l.Addr().String()
	_ = l.Close() // nothing listens there now: every dial is refused

	transport := &http.Transport{ForceAttemptHTTP2: true}
	rt := SharedFirstConnection(transport)
	for i, err := range fanOut(rt, url, 20) {
		if err == nil {
			t.Errorf("request %d to a closed port succeeded", i)
		}
	}
	if h := hostOf(transport, l.Addr().String()); h.connected.Load() {
		t.Error("the host counts as connected after every request failed")
	}
}

// A request waiting for the first request's connection stops waiting when its own context ends; it is not held by
// a first request that never gets one (a server that accepts connections and never answers).
func TestSharedFirstConnectionWaiterCancelled(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held sync.WaitGroup
	defer held.Wait()
	conns := make(chan net.Conn, 10)
	held.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(conns)
				return
			}
			conns <- c // accepted, never answered
		}
	})
	defer func() {
		_ = l.Close()
		for c := range conns {
			_ = c.Close()
		}
	}()

	transport := &http.Transport{ForceAttemptHTTP2: true, TLSHandshakeTimeout: time.Minute}
	defer transport.CloseIdleConnections()
	rt := SharedFirstConnection(transport)
	url := "https://" + l.Addr().String()

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
	h := hostOf(transport, l.Addr().String())
	if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.opening != nil, nil
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
