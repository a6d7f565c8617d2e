// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// A Registry engaged like any cluster-aware component tracks the clusters that are engaged: each stays registered
// while the context it was engaged with lives.
func ExampleRegistry() {
	registry := clusters.NewRegistry[cluster.Cluster]()
	// A provider, or the manager, engages clusters with the registry (here by hand; the clusters are not used).
	var dev, prod cluster.Cluster = &foreignCluster{}, &foreignCluster{}
	devCtx, disengageDev := context.WithCancel(context.Background())
	_ = registry.Engage(devCtx, "dev", dev)
	_ = registry.Engage(context.Background(), "prod", prod)
	fmt.Println(registry.ClusterNames())

	// The end of a cluster's context disengages it.
	disengageDev()
	fmt.Println(registry.ClusterNames())

	_ = registry.ForEach(func(name multicluster.ClusterName, _ cluster.Cluster) error {
		fmt.Println("engaged:", name)
		return nil
	})
	// Output:
	// [dev prod]
	// [prod]
	// engaged: prod
}
