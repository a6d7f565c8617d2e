// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"context"
	"testing"
	"time"
)

// Under NewCluster's HTTP/2 connection pool, which opens a host's connections one at a time by itself, a request
// to a host known to speak HTTP/2 goes at once even while another request holds the turn: here the turn is held
// for ever, so a request that waited in line would wait until its context ended and fail.
func TestSharedFirstConnectionLetsPooledRequestsGoOnceTheHostSpeaksHTTP2(t *testing.T) {
	srv, _ := http2Server(t)
	transport := clientGoTransport(srv)
	rt := &sharedFirstConnection{rt: pooledConnections(transport), maxWait: time.Hour}
	defer closeIdle(rt)

	resp, err := rt.RoundTrip(mustRequest(t, srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	h := hostOf(transport, srv.Listener.Addr().String())
	if h.protocol.Load() != protocolHTTP2 {
		t.Fatalf("after the first request the host's protocol is %d, want HTTP/2 (%d)", h.protocol.Load(), protocolHTTP2)
	}

	h.mu.Lock()
	h.turn = &request{host: h}
	h.setGatedLocked()
	h.mu.Unlock()

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req := mustRequest(t, srv.URL).WithContext(ctx)
	resp, err = rt.RoundTrip(req)
	if err != nil {
		t.Fatalf("a pooled request to an HTTP/2 host waited in line: %v", err)
	}
	_ = resp.Body.Close()
}

// When the request that opened a host's first connection learns that the host speaks HTTP/2, every pooled request
// waiting in line goes at once; the requests of a client without the pool keep going one at a time, the first of
// them now.
func TestSharedFirstConnectionReleasesThePooledLineAtOnce(t *testing.T) {
	h := &connectingHost{}
	first := &request{host: h}
	waiter := func(pooled bool) *request { return &request{host: h, pooled: pooled, ready: make(chan struct{})} }
	p1, n1, p2, n2 := waiter(true), waiter(false), waiter(true), waiter(false)
	h.mu.Lock()
	h.turn = first
	h.line = []*request{p1, n1, p2, n2}
	h.setGatedLocked()
	h.mu.Unlock()

	h.connected.Store(true)
	h.protocol.Store(protocolHTTP2)
	first.settled()

	released := func(r *request) bool {
		select {
		case <-r.ready:
			return true
		default:
			return false
		}
	}
	for name, r := range map[string]*request{"first pooled": p1, "second pooled": p2} {
		if !released(r) {
			t.Errorf("the %s request is still in line", name)
		}
	}
	if !released(n1) || h.turn != n1 {
		t.Error("the first request without the pool did not get the turn")
	}
	if released(n2) {
		t.Error("the second request without the pool went before its turn")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.line) != 1 || h.line[0] != n2 || !h.gated.Load() {
		t.Errorf("line after the release: %d requests (gated %v), want the second request without the pool", len(h.line), h.gated.Load())
	}
}
