// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Command replica is one replica of the sharded controller that test/e2e/sharding runs as an OS process, several at
// once against one host API server. Every namespace of the host is a cluster (providers/namespace); the controller
// reconciles each cluster's ConfigMap "tick" by writing a ConfigMap "ack" next to it, and prints a line for the
// start and the end of every reconcile:
//
//	START <replica> <cluster> <start unix ns>
//	END <replica> <cluster> <start unix ns> <end unix ns>
//
// The sharded coordinator logs (JSON, on stderr) when it acquires, drains, releases or loses a cluster.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded/peers"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
)

func main() {
	id := flag.String("id", "", "this replica's peer ID")
	ns := flag.String("namespace", "default", "namespace of the fences and peer Leases")
	leaseDuration := flag.Duration("lease-duration", 4*time.Second, "lease duration")
	leaseRenew := flag.Duration("lease-renew", time.Second, "renew interval")
	throttle := flag.Duration("fence-throttle", 100*time.Millisecond, "fence throttle")
	probe := flag.Duration("probe", 500*time.Millisecond, "probe interval")
	rehash := flag.Duration("rehash", 100*time.Millisecond, "rehash interval")
	work := flag.Duration("work", 20*time.Millisecond, "how long each reconcile works after its writes")
	flag.Parse()
	// JSON lines with timestamps to the nanosecond, which the test orders against the reconciles.
	ctrl.SetLogger(funcr.NewJSON(func(obj string) { fmt.Fprintln(os.Stderr, obj) },
		funcr.Options{LogTimestamp: true, TimestampFormat: time.RFC3339Nano}))
	log := ctrl.Log.WithName("replica")
	if err := run(*id, *ns, *leaseDuration, *leaseRenew, *throttle, *probe, *rehash, *work); err != nil {
		log.Error(err, "replica failed")
		os.Exit(1)
	}
}

func run(id, ns string, leaseDuration, leaseRenew, throttle, probe, rehash, work time.Duration) error {
	cfg := ctrl.GetConfigOrDie()
	kube, err := client.NewWithWatch(cfg, client.Options{})
	if err != nil {
		return err
	}
	coord := sharded.New(kube, ctrl.Log.WithName("coordinator"),
		sharded.WithShardLease(ns, "e2e-shard"),
		sharded.WithLeaseTimings(leaseDuration, leaseRenew, throttle),
		sharded.WithSynchronizationIntervals(probe, rehash),
		sharded.WithPeerRegistry(peers.NewLeaseRegistry(kube, ns, "e2e-peer", id, 1, ctrl.Log.WithName("peers"))),
	)
	shared, err := cluster.New(cfg)
	if err != nil {
		return err
	}
	mgr, err := mcmanager.New(cfg, namespace.New(shared), mcmanager.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	}, mcmanager.WithCoordinator(coord))
	if err != nil {
		return err
	}
	if err := mgr.GetLocalManager().Add(shared); err != nil {
		return err
	}

	isTick := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() == "tick" })
	err = mcbuilder.ControllerManagedBy(mgr).
		Named("tick").
		For(&corev1.ConfigMap{}, mcbuilder.WithPredicates(isTick)).
		WithOptions(controller.TypedOptions[mcreconcile.Request]{MaxConcurrentReconciles: 8}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			start := time.Now()
			fmt.Fprintf(os.Stdout, "START %s %s %d\n", id, req.ClusterName, start.UnixNano())
			defer func() {
				fmt.Fprintf(os.Stdout, "END %s %s %d %d\n", id, req.ClusterName, start.UnixNano(), time.Now().UnixNano())
			}()

			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return ctrl.Result{}, err
			}
			c := cl.GetClient()
			tick := &corev1.ConfigMap{}
			if err := c.Get(ctx, req.NamespacedName, tick); err != nil {
				return ctrl.Result{}, client.IgnoreNotFound(err)
			}
			ack := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: "ack"}}
			if _, err := controllerutil.CreateOrUpdate(ctx, c, ack, func() error {
				ack.Data = map[string]string{"by": id, "tick": tick.Data["n"]}
				return nil
			}); err != nil {
				return ctrl.Result{}, err
			}
			select { // the rest of the work, which honours cancellation
			case <-ctx.Done():
			case <-time.After(work):
			}
			return ctrl.Result{}, nil
		}))
	if err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}
