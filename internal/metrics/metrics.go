// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package metrics holds the Prometheus metrics of multicluster-runtime. They are registered on controller-runtime's
// registry, so they are served by the manager's metrics endpoint next to controller-runtime's own.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

var (
	// EngagedClusters is the number of clusters currently engaged with a manager.
	EngagedClusters = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "multicluster_engaged_clusters",
		Help: "Number of clusters currently engaged with the multi-cluster manager.",
	})

	// ClusterEngagements counts engagements of clusters with a manager, by outcome.
	ClusterEngagements = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "multicluster_cluster_engagements_total",
		Help: "Total number of clusters engaged with the multi-cluster manager, by result (engaged, replaced, error).",
	}, []string{"result"})

	// ProviderEngageDuration is the time a provider took from starting a cluster to engaging it, including the
	// wait for its cache.
	ProviderEngageDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "multicluster_provider_engage_duration_seconds",
		Help:    "Time from a provider starting a cluster until it is engaged, including the wait for its cache to sync.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 14),
	})

	// SourceSyncDuration is the time a controller's per-cluster source took to sync after it was started.
	SourceSyncDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "multicluster_controller_source_sync_duration_seconds",
		Help:    "Time from starting a controller's source for a cluster until its cache synced.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 14),
	}, []string{"controller"})

	// ClusterErrors counts failures that concern one cluster, by component and kind of failure.
	ClusterErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "multicluster_cluster_errors_total",
		Help: "Total number of failures concerning one cluster (cache sync timeouts, source start failures, engage failures).",
	}, []string{"cluster", "component", "reason"})

	// DroppedRequests counts requests a controller dropped because their cluster had left the fleet.
	DroppedRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "multicluster_controller_dropped_requests_total",
		Help: "Total number of queued requests a controller dropped because their cluster was no longer engaged.",
	}, []string{"controller"})
)

// peerLabel is the label of the sharded coordinator's metrics that names the replica.
const peerLabel = "peer"

// Metrics of the sharded coordinator. Each is labelled with the replica's peer ID ("peer"), so that replicas
// running in one process (tests) keep apart.
var (
	// ShardOwnedClusters is the number of clusters a replica owns: it holds their fence and works on them.
	ShardOwnedClusters = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "multicluster_shard_owned_clusters",
		Help: "Number of clusters this replica owns (holds the fence of and engages its controllers with).",
	}, []string{peerLabel})

	// ShardPeers is the number of replicas in the membership a replica assigns clusters over.
	ShardPeers = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "multicluster_shard_peers",
		Help: "Number of live replicas, this one included, that this replica assigns clusters to.",
	}, []string{peerLabel})

	// ShardHandoffs counts ownership changes of a replica: clusters acquired, released after draining, and lost
	// (work stopped because the fence could not be renewed in time).
	ShardHandoffs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "multicluster_shard_handoffs_total",
		Help: "Total number of clusters this replica acquired, released or lost, by direction (acquired, released, lost).",
	}, []string{peerLabel, "direction"})

	// ShardHandoffDuration is how long a replica took to acquire a cluster it was assigned (from the assignment to
	// starting work) and to release one it was no longer assigned (from stopping its work to releasing the fence,
	// which includes waiting for reconciles in flight).
	ShardHandoffDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "multicluster_shard_handoff_duration_seconds",
		Help:    "Time to acquire an assigned cluster (assignment to work) or to release one (stop to fence released, drain included), by direction.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 14),
	}, []string{peerLabel, "direction"})

	// ShardFenceAcquireFailures counts attempts to fence a cluster that did not succeed, by reason (held: another
	// live replica holds or claims it; conflict: another replica wrote first; error: the API request failed).
	ShardFenceAcquireFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "multicluster_shard_fence_acquire_failures_total",
		Help: "Total number of attempts to fence a cluster that failed, by reason (held, conflict, error).",
	}, []string{peerLabel, "reason"})

	// ShardLeaseWrites counts the Lease writes of a replica (creates, updates and deletes), by kind (fence, peer).
	ShardLeaseWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "multicluster_shard_lease_writes_total",
		Help: "Total number of Lease writes (create, update, delete) of this replica, by kind (fence, peer).",
	}, []string{peerLabel, "kind"})

	// ShardFenceOverruns counts reconciles that returned after their replica's fence had stopped being valid: they
	// ran past the renew deadline, so another replica may have been working on the cluster when they returned.
	ShardFenceOverruns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "multicluster_shard_fence_overruns_total",
		Help: "Total number of reconciles that returned after this replica's fence of their cluster had stopped being valid.",
	}, []string{peerLabel})
)

func init() {
	metrics.Registry.MustRegister(
		EngagedClusters,
		ClusterEngagements,
		ProviderEngageDuration,
		SourceSyncDuration,
		ClusterErrors,
		DroppedRequests,
		ShardOwnedClusters,
		ShardPeers,
		ShardHandoffs,
		ShardHandoffDuration,
		ShardFenceAcquireFailures,
		ShardLeaseWrites,
		ShardFenceOverruns,
	)
}
