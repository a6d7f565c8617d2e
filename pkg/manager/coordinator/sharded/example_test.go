// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded_test

import (
	"os"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
)

// This example runs one replica of a sharded controller: every replica runs this same program, and each cluster of
// the fleet is reconciled by one of them at a time. The coordinator keeps its fences in the namespace "my-system" of
// the host cluster, with a client that reads from the API server (not a cache) and watches the fences.
func ExampleNew() {
	log := ctrl.Log.WithName("sharded-example")
	cfg := ctrl.GetConfigOrDie()

	kube, err := client.NewWithWatch(cfg, client.Options{})
	var mgr mcmanager.Manager
	if err == nil {
		coordinator := sharded.New(kube, log,
			sharded.WithShardLease("my-system", "my-controller"),
			sharded.WithLeaseTimings(15*time.Second, 5*time.Second, 200*time.Millisecond),
		)
		mgr, err = mcmanager.New(cfg, clusters.New(), mcmanager.Options{}, mcmanager.WithCoordinator(coordinator))
	}
	// Controllers built with mcbuilder.ControllerManagedBy(mgr) go here: they are engaged only with the clusters
	// this replica owns.
	if err == nil {
		err = mgr.Start(ctrl.SetupSignalHandler())
	}
	if err != nil {
		log.Error(err, "the replica failed")
		os.Exit(1)
	}
}
