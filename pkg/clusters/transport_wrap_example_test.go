// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// WrapTransport counts the requests of every cluster built with it. A provider takes it in its cluster options
// (for instance kubeconfig.Options.ClusterOptions) and applies it to each cluster it builds from its source.
func ExampleWrapTransport() {
	member := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer member.Close()

	var requests atomic.Int64
	countRequests := clusters.WrapTransport(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			requests.Add(1)
			return rt.RoundTrip(req)
		})
	})
	options := []cluster.Option{countRequests}

	for _, name := range []multicluster.ClusterName{"dev", "prod"} {
		cl, err := clusters.NewCluster(name, &rest.Config{Host: member.URL}, options...)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp, err := cl.GetHTTPClient().Get(member.URL + "/version")
		if err != nil {
			fmt.Println(err)
			return
		}
		_ = resp.Body.Close()
	}
	fmt.Println("requests:", requests.Load())
	// Output:
	// requests: 2
}
