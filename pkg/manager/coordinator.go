// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/basic"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Coordinator decides which clusters this process engages its cluster-aware runnables with. The manager registers
// every Aware added to it (controllers and other cluster-aware runnables) with the coordinator, and forwards every
// cluster the provider engages; the coordinator engages the Awares with the clusters it chooses, for as long as it
// chooses. The default, basic.New(), engages every Aware with every cluster; the sharded coordinator (package
// sharded) splits the fleet between the replicas of a controller.
type Coordinator interface {
	// AddAware registers a cluster-aware runnable. The coordinator engages it with the clusters it has chosen so
	// far and with those it chooses later.
	AddAware(multicluster.Aware)

	// Engage hands the coordinator a cluster engaged with the manager, for the lifetime of ctx. It must not block
	// on the cluster. It returns an error only if the cluster cannot be engaged at all; the caller then cancels ctx
	// and may retry.
	Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error

	// Runnable returns what the coordinator needs to run (its Lease loops, for instance), which the manager runs
	// with its other runnables, or nil.
	Runnable() manager.Runnable
}

// AwareRegistrar is implemented by Coordinators whose registration of an Aware can fail: engaging it with the
// clusters already chosen. Manager.Add calls RegisterAware instead of AddAware and returns its error.
type AwareRegistrar interface {
	// RegisterAware registers the Aware as AddAware does and returns the failures to engage it, each naming its
	// cluster.
	RegisterAware(multicluster.Aware) error
}

// ClusterWorkGate is implemented by Coordinators that fence the work done for a cluster, and by the Manager, which
// forwards to its coordinator (and lets all work start if the coordinator does not fence). A fencing coordinator
// also attaches a gate for the cluster to the context of every engagement it makes (clusters.WithWorkGate): the
// gate travels with the engagement, and controllers of pkg/controller pass every reconcile of an engaged cluster
// through it. They ask the manager's ClusterWorkGate, by name, only for requests of fleet clusters they are not
// engaged with. Either way a request whose cluster this process must not work on now is dropped, and the
// coordinator knows when every reconcile it let start has returned.
type ClusterWorkGate interface {
	// StartClusterWork is called before work for the named cluster starts. If ok is false the work must not start.
	// Otherwise the work runs with workCtx, derived from ctx, which ends when the process must stop working on the
	// cluster, and done must be called once the work has returned.
	StartClusterWork(ctx context.Context, name multicluster.ClusterName) (workCtx context.Context, done func(), ok bool)
}

// WithCoordinator sets the coordinator that decides which clusters this process engages its cluster-aware
// runnables with. The default is basic.New(), which engages every runnable with every cluster. A nil coordinator
// means the default.
func WithCoordinator(c Coordinator) Option {
	return func(m *mcManager) {
		m.coordinator = c
	}
}

// defaultCoordinator is the coordinator of managers built without WithCoordinator.
func defaultCoordinator() Coordinator {
	return basic.New()
}

// noWork is the done function of work that needs no accounting.
func noWork() {}

// StartClusterWork lets the work start unless the coordinator fences the cluster and says otherwise.
func (m *mcManager) StartClusterWork(ctx context.Context, name multicluster.ClusterName) (context.Context, func(), bool) {
	if gate, ok := m.coordinator.(ClusterWorkGate); ok && name != LocalCluster {
		return gate.StartClusterWork(ctx, name)
	}
	return ctx, noWork, true
}
