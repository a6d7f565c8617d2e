// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharder_test

import (
	"fmt"

	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/sharder"
)

// Bounded-load rendezvous hashing gives each replica its weighted share of the clusters: here replica "c", of
// weight 2, gets half of them.
func ExampleBoundedHRW_Assign() {
	clusters := make([]string, 1000)
	for i := range clusters {
		clusters[i] = fmt.Sprintf("cluster-%d", i)
	}
	peers := []sharder.PeerInfo{{ID: "a", Weight: 1}, {ID: "b", Weight: 1}, {ID: "c", Weight: 2}}

	owned := map[string]int{}
	for _, peer := range sharder.NewBoundedHRW(0).Assign(clusters, peers) {
		owned[peer]++
	}
	fmt.Println(owned["a"], owned["b"], owned["c"])
	// Output: 250 250 500
}
