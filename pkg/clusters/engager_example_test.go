// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"context"
	"fmt"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// printingAware stands in for the multi-cluster manager: it prints the clusters engaged with it.
type printingAware struct{ engaged chan<- string }

func (a printingAware) Engage(_ context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	a.engaged <- fmt.Sprintf("engaged %s at %s", name, cl.GetConfig().Host)
	return nil
}

// A provider built on an Engager says what each cluster name should be, and the engager builds, engages, replaces
// and stops the clusters. Here the "source" is a map of two API servers; a real provider reads files, Secrets or
// other objects, and calls Want and Remove as they change. (The clusters have no informers, so they sync without
// reaching their API servers.)
func ExampleEngager() {
	engager := clusters.NewEngager(clusters.EngagerOptions{})
	source := map[multicluster.ClusterName]string{"east": "https://east.example:6443", "west": "https://west.example:6443"}
	for name, host := range source {
		engager.Want(name, clusters.Target{Config: &rest.Config{Host: host}, Source: "the example's map"})
	}

	// The manager starts the provider, which starts the engager with the manager as its Aware.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	engaged := make(chan string)
	go func() { _ = engager.Start(ctx, printingAware{engaged: engaged}) }()
	first, second := <-engaged, <-engaged
	if first > second {
		first, second = second, first
	}
	fmt.Println(first)
	fmt.Println(second)

	// A changed config replaces the cluster; a name that should be gone is disengaged at once.
	engager.Want("east", clusters.Target{Config: &rest.Config{Host: "https://east-2.example:6443"}})
	fmt.Println(<-engaged)
	engager.Remove("west")
	fmt.Println(engager.ClusterNames())

	// Output:
	// engaged east at https://east.example:6443
	// engaged west at https://west.example:6443
	// engaged east at https://east-2.example:6443
	// [east]
}
