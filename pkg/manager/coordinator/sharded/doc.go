// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package sharded provides a Coordinator that splits a fleet of clusters between the replicas of a controller, so that
each cluster is reconciled by exactly one replica at a time, and moves clusters between replicas as replicas come,
go, or change weight.

Every replica runs the same manager with the same provider and a sharded coordinator:

	mgr, err := mcmanager.New(cfg, provider, opts, mcmanager.WithCoordinator(sharded.New(kubeClient, log)))

The provider engages every cluster with every replica; the coordinator engages the controllers (and the other
cluster-aware runnables) of a replica only with the clusters that replica owns.

# Ownership

The replicas know each other through a peer registry (package peers: one Lease per replica, by default). Each
replica computes from the live replicas and their weights which clusters it should own, with the same
deterministic function on every replica (package sharder; by default rendezvous hashing with bounded loads, which
keeps every replica within a cluster or two of its weighted share).

A replica owns a cluster only while it holds the cluster's fence, a Lease on the host cluster. By default each
replica has one fence, the Lease <prefix>-<replica ID>, whose annotations list the clusters it holds and those it
claims:

	kubectl -n kube-system get leases -l multicluster.x-k8s.io/shard-fence=mcr-shard \
	  -o custom-columns='REPLICA:.spec.holderIdentity,CLUSTERS:.metadata.annotations.multicluster\.x-k8s\.io/clusters'

A replica claims a cluster by writing it into its own fence, then reads every fence straight from the API server;
it starts working on the cluster only if no other live fence lists it. With WithPerClusterLease(true) each cluster
has its own fence, the Lease <prefix>-<cluster> whose holderIdentity is its owner, acquired with optimistic
concurrency; that costs a Lease write per cluster per renew interval instead of a few per replica.

# Guarantees

  - Single writer. A replica lets a reconcile start (through the gate it attaches to each engagement,
    clusters.WorkGate, which every controller of pkg/controller passes; mcmanager.ClusterWorkGate by name) only
    for a cluster it owns and only while its fence is valid: renewed less than the renew
    deadline (lease duration minus renew interval) ago, measured on the monotonic clock from when the renewal was
    sent. Another replica takes a cluster only when the owner's fence released it, or when it has seen that fence
    unchanged for the whole lease duration, which ends after the owner stopped. A replica that gives a cluster up
    first ends the cluster's engagement (its controllers remove their watches and drop the requests still queued
    for it), then waits for every reconcile it let start to return, and only then releases the fence. A replica
    that could not renew in time (API server unreachable, process paused) stops its work at the renew deadline and
    claims its clusters again, through the fences, before it works on them again.
  - Fast handoff. A cluster that moves because a replica joined, left gracefully or changed weight is released
    explicitly once drained; the new owner, which claimed it already and watches the fences, starts within a
    fraction of a second of the release, not after the lease expires.
  - Failover. A crashed replica's fence expires in the others' view after the lease duration; they drop it from
    the membership then (whatever the registry says) and take its clusters within one more probe.
  - Bounded Lease writes: with the default per-replica fences, a replica writes its fence and its peer Lease once
    per renew interval, plus batched claims and releases, whatever the number of clusters.

A reconcile that does not return when its context ends delays the release of its cluster; a reconcile in flight in
a process that is paused (SIGSTOP, a frozen VM) longer than the lease duration resumes when the process does, after
another replica may have taken the cluster: no Lease can stop a frozen process, as with leader election. Such
reconciles are counted by the multicluster_shard_fence_overruns_total metric.

Replica IDs must be unique (the default is the host name, which a StatefulSet makes unique); all replicas must use
the same fence namespace, prefix, fencing mode and timings.

Main entry points: New and its options (WithShardLease, WithLeaseTimings, WithSynchronizationIntervals,
WithPerClusterLease, WithPeerWeight, WithPeerRegistry, WithSharder), Coordinator.Owned.
*/
package sharded
