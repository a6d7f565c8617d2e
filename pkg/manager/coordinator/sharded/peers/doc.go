// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package peers keeps the membership of a sharded controller: which replicas are alive, and their weights.

A Registry announces this replica (Self) and reports the live replicas (Snapshot). NewLeaseRegistry returns the
default one: every replica keeps a Lease named <prefix>-<id> in a namespace of the host cluster, renewed every renew
interval and annotated with its weight; a replica is live while this process sees its Lease change within the
Lease's duration (judged on this process's monotonic clock from when it saw each change, never by comparing the
Lease's renewTime with the local clock). A replica that stops gracefully deletes its Lease; one that crashes drops
out of every Snapshot within the lease duration. Leases of replicas dead for three lease durations are deleted.

	kubectl -n kube-system get leases -l multicluster.x-k8s.io/shard-peers=mcr-peer

A Registry may also implement LeaseTimingsSetter (the sharded coordinator then gives it its lease timings, so that
a crashed replica leaves the membership as fast as its fences expire), Syncer (the coordinator waits for it before
assigning clusters, so that a starting replica does not take clusters because it has not seen its peers yet), and
WeightSetter (to change this replica's weight at run time).

Main entry points: Registry, NewLeaseRegistry, LeaseRegistry.
*/
package peers
