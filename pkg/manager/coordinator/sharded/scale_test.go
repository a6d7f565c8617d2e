// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sharded_test

import (
	"math"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/internal/metrics"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/peers"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// With the default options, 3 replicas and 1,000 clusters: each replica owns its third of the fleet to within
// 10% (to within a cluster, in fact), and the replicas together write at most 10 Leases a second on average once
// settled (each writes its fence and its peer Lease once per renew interval, whatever the number of clusters).
func TestThousandClustersDefaultOptions(t *testing.T) {
	if testing.Short() {
		t.Skip("measures Lease writes over a 20s window")
	}
	rate := thousandClusters(t, "scale", 20*time.Second)
	if rate > 10 {
		t.Errorf("%.2f Lease writes/s once settled, more than 10", rate)
	}
}

// With per-cluster fences (an option), every held cluster's Lease is renewed every renew interval: about 200
// writes a second at 1,000 clusters with the default timings. The test measures it, for docs/performance.md.
func TestThousandClustersPerClusterFences(t *testing.T) {
	if testing.Short() {
		t.Skip("measures Lease writes over a 10s window")
	}
	rate := thousandClusters(t, "per-cluster", 10*time.Second, sharded.WithPerClusterLease(true))
	t.Logf("(the client's rate limit must allow for it: these replicas use 500 requests/s)")
	if rate < 100 {
		t.Errorf("%.2f Lease writes/s with per-cluster fences: the renewals are missing", rate)
	}
}

// thousandClusters runs 3 replicas with the default options (but the namespace, the prefix, the replica's ID and
// extra) over 1,000 clusters, checks the balance, and returns the Lease writes per second once settled.
func thousandClusters(t *testing.T, prefix string, window time.Duration, extra ...sharded.Option) float64 {
	e := newEnv(t)
	// Per-cluster fences write a Lease per cluster per renew interval: more than client-go's default rate limit
	// (5 requests/s) allows. The replicas' client allows 500.
	cfg := rest.CopyConfig(e.cfg)
	cfg.QPS, cfg.Burst = 500, 1000
	cli, err := client.NewWithWatch(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.cli = cli
	e.addClusters(clusterNames(1000)...)
	ids := []string{prefix + "-a", prefix + "-b", prefix + "-c"}
	writes := func() float64 {
		var n float64
		for _, id := range ids {
			n += counterValue(metrics.ShardLeaseWrites.WithLabelValues(id, "fence"))
			n += counterValue(metrics.ShardLeaseWrites.WithLabelValues(id, "peer"))
		}
		return n
	}
	before := writes()
	started := time.Now()
	rs := make([]*replica, 0, len(ids))
	for _, id := range ids {
		// Default timings and intervals: only the namespace, the prefix and the replica's ID are set.
		opts := append([]sharded.Option{sharded.WithShardLease(e.ns, "fence"),
			sharded.WithPeerRegistry(peers.NewLeaseRegistry(e.cli, e.ns, "peer", id, 1, logf.Log.WithName(id)))}, extra...)
		rs = append(rs, e.startWith(id, opts...))
	}
	harness.Eventually(t, 3*time.Minute, "1,000 clusters split over 3 replicas", func() bool { return e.settled(rs...) })
	settled := time.Now()
	atSettle := writes()

	for _, r := range rs {
		n := float64(len(r.c.Owned()))
		if math.Abs(n-1000.0/3) > 1000.0/3*0.1 {
			t.Errorf("replica %s owns %v clusters, more than 10%% off a third", r.id, n)
		}
		t.Logf("replica %s owns %v clusters", r.id, n)
	}

	harness.Consistently(t, window, "nothing to move", func() bool { return e.settled(rs...) })
	rate := (writes() - atSettle) / window.Seconds()
	t.Logf("1,000 clusters, 3 replicas, %s: settled in %s with %v Lease writes; then %.2f Lease writes/s",
		prefix, settled.Sub(started).Round(time.Millisecond), atSettle-before, rate)
	for _, r := range rs {
		r.stop()
	}
	return rate
}

// counterValue reads a counter.
func counterValue(c prometheus.Counter) float64 {
	m := &dto.Metric{}
	if err := c.Write(m); err != nil {
		return 0
	}
	return m.GetCounter().GetValue()
}
