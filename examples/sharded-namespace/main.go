// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command sharded-namespace runs one replica of a sharded controller. Every namespace of one real cluster is a
// cluster of the fleet (providers/namespace); the replicas split the namespaces between them with the sharded
// coordinator, so each namespace is reconciled by exactly one replica at a time. For each ConfigMap "app-config" the
// owning replica writes a ConfigMap "app-config-seen" next to it, naming itself. Every replica prints the clusters it
// owns whenever they change.
//
// Run several replicas with different -peer-id values (a StatefulSet gives each pod its own name, the default), all
// with the same -fence-namespace and -fence-prefix.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/peers"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
)

// options are the program's flags.
type options struct {
	peerID         string
	weight         uint
	fenceNamespace string
	fencePrefix    string
	leaseDuration  time.Duration
	leaseRenew     time.Duration
	probe          time.Duration
	metricsAddr    string
	probeAddr      string
}

func main() {
	var o options
	host, _ := os.Hostname()
	flag.StringVar(&o.peerID, "peer-id", envOr("POD_NAME", host), "this replica's ID, unique among the replicas (default: $POD_NAME, else the host name)")
	flag.UintVar(&o.weight, "weight", 1, "this replica's share of the clusters relative to the others'")
	flag.StringVar(&o.fenceNamespace, "fence-namespace", envOr("POD_NAMESPACE", "kube-system"), "namespace of the fence and membership Leases (default: $POD_NAMESPACE, else kube-system)")
	flag.StringVar(&o.fencePrefix, "fence-prefix", "sharded-namespace", "prefix of the fence Leases; the membership Leases add -peer")
	flag.DurationVar(&o.leaseDuration, "lease-duration", sharded.DefaultLeaseDuration, "how long a silent replica keeps its clusters")
	flag.DurationVar(&o.leaseRenew, "lease-renew", sharded.DefaultLeaseRenew, "how often a replica renews its Leases")
	flag.DurationVar(&o.probe, "probe", sharded.DefaultProbe, "longest interval between two rounds of the ownership loop")
	flag.StringVar(&o.metricsAddr, "metrics-bind-address", "0", "address of the metrics endpoint (0: off)")
	flag.StringVar(&o.probeAddr, "health-probe-bind-address", "0", "address of the health probes (0: off)")
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))

	if err := run(ctrl.SetupSignalHandler(), o); err != nil {
		ctrl.Log.Error(err, "replica failed")
		os.Exit(1)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func run(ctx context.Context, o options) error {
	log := ctrl.Log.WithName("sharded-namespace")
	cfg := ctrl.GetConfigOrDie()

	// snippet:start coordinator
	// The coordinator reads and writes its Leases straight from the API server: a client that can watch
	// sees other replicas' releases at once.
	kube, err := client.NewWithWatch(cfg, client.Options{})
	if err != nil {
		return err
	}
	coordinator := sharded.New(kube, log.WithName("shard"),
		sharded.WithShardLease(o.fenceNamespace, o.fencePrefix),
		sharded.WithPeerRegistry(peers.NewLeaseRegistry(kube, o.fenceNamespace, o.fencePrefix+"-peer",
			o.peerID, uint32(o.weight), log.WithName("peers"))),
		sharded.WithLeaseTimings(o.leaseDuration, o.leaseRenew, 0),
		sharded.WithSynchronizationIntervals(o.probe, 0),
	)

	shared, err := cluster.New(cfg) // one cluster backs every namespace's virtual cluster
	if err != nil {
		return err
	}
	mgr, err := mcmanager.New(cfg, namespace.New(shared), mcmanager.Options{
		Metrics:                metricsserver.Options{BindAddress: o.metricsAddr},
		HealthProbeBindAddress: o.probeAddr,
	}, mcmanager.WithCoordinator(coordinator))
	// snippet:end coordinator
	if err != nil {
		return err
	}
	if err := mgr.GetLocalManager().Add(shared); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("fleet", mcmanager.FleetReadyzCheck(mgr)); err != nil {
		return err
	}

	err = mcbuilder.ControllerManagedBy(mgr).
		Named("app-config-seen").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			if req.Name != "app-config" {
				return ctrl.Result{}, nil
			}
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return ctrl.Result{}, err
			}
			c := cl.GetClient()
			cm := &corev1.ConfigMap{}
			if err := c.Get(ctx, req.NamespacedName, cm); err != nil {
				return ctrl.Result{}, client.IgnoreNotFound(err)
			}
			seen := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: "app-config-seen"}}
			if _, err := controllerutil.CreateOrUpdate(ctx, c, seen, func() error {
				seen.Data = map[string]string{"replica": o.peerID, "resourceVersion": cm.ResourceVersion}
				return nil
			}); err != nil {
				return ctrl.Result{}, err
			}
			fmt.Printf("replica %s reconciled app-config in cluster %q\n", o.peerID, req.ClusterName)
			return ctrl.Result{}, nil
		}))
	if err != nil {
		return err
	}

	// Narrate: print the clusters this replica owns whenever they change.
	if err := mgr.GetLocalManager().Add(ownershipReporter{coordinator: coordinator, id: o.peerID}); err != nil {
		return err
	}
	return mgr.Start(ctx)
}

// ownershipReporter prints the clusters the replica owns whenever they change.
type ownershipReporter struct {
	coordinator *sharded.Coordinator
	id          string
}

func (r ownershipReporter) Start(ctx context.Context) error {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var last []multicluster.ClusterName
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		owned := r.coordinator.Owned()
		if slices.Equal(owned, last) {
			continue
		}
		last = owned
		names := make([]string, len(owned))
		for i, n := range owned {
			names[i] = n.String()
		}
		fmt.Printf("replica %s owns %d clusters: %s\n", r.id, len(owned), strings.Join(names, " "))
	}
}

// NeedLeaderElection is false: every replica reports.
func (ownershipReporter) NeedLeaderElection() bool { return false }
