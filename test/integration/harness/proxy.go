// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package harness

import (
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
)

// MemberProxy serves a member's API over TLS on loopback, passing requests on with the member's admin credentials
// (any Authorization header the client sends is dropped). handle sees every request first and decides what to do
// with it: answer it itself, or pass it on with upstream. The server is closed when the test ends; its URL and the
// PEM of its certificate are in the returned rest.Config, which carries no credentials.
func MemberProxy(t testing.TB, fleet *mcenvtest.Fleet, member string, handle func(w http.ResponseWriter, r *http.Request, upstream http.Handler)) *rest.Config {
	t.Helper()
	return memberProxy(t, fleet, member, handle, nil)
}

// CountingMemberProxy serves a member's API as MemberProxy does, passing every request on, over HTTP/2 as a real
// API server does, and counts the connections clients open to it: connections returns how many it has accepted
// so far.
func CountingMemberProxy(t testing.TB, fleet *mcenvtest.Fleet, member string) (cfg *rest.Config, connections func() int64) {
	t.Helper()
	return CountingMemberProxyWithStreams(t, fleet, member, 0)
}

// CountingMemberProxyWithStreams is CountingMemberProxy whose server allows maxStreams concurrent streams a
// connection (Go's default, 250, if 0), as kube-apiserver allows 100.
func CountingMemberProxyWithStreams(t testing.TB, fleet *mcenvtest.Fleet, member string, maxStreams int) (cfg *rest.Config, connections func() int64) {
	t.Helper()
	var accepted atomic.Int64
	cfg = memberProxy(t, fleet, member, func(w http.ResponseWriter, r *http.Request, upstream http.Handler) {
		upstream.ServeHTTP(w, r)
	}, func(srv *httptest.Server) {
		srv.EnableHTTP2 = true
		if maxStreams > 0 {
			srv.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: maxStreams}
		}
		srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
			if state == http.StateNew {
				accepted.Add(1)
			}
		}
	})
	return cfg, accepted.Load
}

// memberProxy starts the server of MemberProxy, after configure (if not nil) has set it up.
func memberProxy(t testing.TB, fleet *mcenvtest.Fleet, member string, handle func(w http.ResponseWriter, r *http.Request, upstream http.Handler), configure func(*httptest.Server)) *rest.Config {
	t.Helper()
	cfg := Config(t, fleet, member)
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatalf("transport of %s: %v", member, err)
	}
	target, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatalf("address of %s: %v", member, err)
	}
	reverse := httputil.NewSingleHostReverseProxy(target)
	reverse.Transport = transport
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del("Authorization")
		handle(w, r, reverse)
	}))
	if configure != nil {
		configure(srv)
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return &rest.Config{
		Host:            srv.URL,
		TLSClientConfig: rest.TLSClientConfig{CAData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})},
	}
}
