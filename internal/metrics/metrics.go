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

func init() {
	metrics.Registry.MustRegister(
		EngagedClusters,
		ClusterEngagements,
		ProviderEngageDuration,
		SourceSyncDuration,
		ClusterErrors,
		DroppedRequests,
	)
}
