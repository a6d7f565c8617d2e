// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package restmapper_test

import (
	"fmt"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/restmapper"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
)

// memberConfigs stands for a program's own list of member clusters, one rest.Config each.
func memberConfigs() []*rest.Config { return nil }

// A program that builds its clusters itself gives them shared discovery with ClusterOption; the providers of this
// repository do so for every cluster they build.
func ExampleClusterOption() {
	for _, cfg := range memberConfigs() {
		cl, err := cluster.New(cfg, restmapper.ClusterOption())
		if err != nil {
			panic(err)
		}
		_ = cl // start it, or hand it to the clusters provider
	}
}

// A Pool of one's own tells how many distinct discovery documents its clusters serve (two for each API surface:
// the legacy group's and the named groups').
func ExamplePool() {
	pool := restmapper.NewPool()
	for _, cfg := range memberConfigs() {
		if _, err := cluster.New(cfg, pool.ClusterOption()); err != nil {
			panic(err)
		}
	}
	fmt.Println("discovery documents:", pool.Groups())
	// Output: discovery documents: 0
}

// Clusters get a RESTMapper of their own, as in plain controller-runtime, when the provider's ClusterOptions set one.
func Example_ownRESTMapper() {
	// snippet:start own-restmapper
	provider := kubeconfig.New(kubeconfig.Options{
		ClusterOptions: []cluster.Option{func(o *cluster.Options) {
			o.MapperProvider = apiutil.NewDynamicRESTMapper
		}},
	})
	// snippet:end own-restmapper
	_ = provider
}
