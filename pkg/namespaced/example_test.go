// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespaced_test

import (
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/namespaced"
)

// Two namespaces of one cluster, each presented as a cluster of its own: what the team-a cluster's client lists
// in "default" is namespace team-a's, and the ConfigMap it creates in "default" lands in team-a.
func ExampleNewHost() {
	ctx := ctrl.SetupSignalHandler()
	shared, err := cluster.New(ctrl.GetConfigOrDie())
	if err != nil {
		panic(err)
	}
	// The caller runs the shared cluster; the virtual clusters only use it.
	go func() { _ = shared.Start(ctx) }()
	if !shared.GetCache().WaitForCacheSync(ctx) {
		panic("the shared cache did not sync")
	}

	host := namespaced.NewHost(shared, ctrl.Log.WithName("namespaced"))
	teamA, teamB := host.NewCluster("team-a"), host.NewCluster("team-b")

	settings := &corev1.ConfigMap{}
	settings.Name, settings.Namespace = "settings", "default"
	if err := teamA.GetClient().Create(ctx, settings); err != nil {
		panic(err) // a namespace other than "default" or team-a would be refused, naming both
	}
	list := &corev1.ConfigMapList{}
	if err := teamB.GetClient().List(ctx, list); err != nil { // team-b's ConfigMaps only, presented in "default"
		panic(err)
	}
}
