// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/rest"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
)

// A client of your own, built from a rest.Config, gets what clusters.NewCluster gives every cluster: requests that
// go out together before the transport has a connection share the one the first of them opens.
func ExampleSharedFirstConnection() {
	var connections atomic.Int64
	member := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	member.EnableHTTP2 = true
	member.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			connections.Add(1)
		}
	}
	member.StartTLS()
	defer member.Close()

	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: member.Certificate().Raw})
	cfg := &rest.Config{Host: member.URL, TLSClientConfig: rest.TLSClientConfig{CAData: ca}}
	cfg.Wrap(clusters.SharedFirstConnection)
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if resp, err := client.Get(member.URL + "/version"); err == nil {
				_ = resp.Body.Close()
			}
		})
	}
	wg.Wait()
	fmt.Println("connections:", connections.Load())
	// Output:
	// connections: 1
}
