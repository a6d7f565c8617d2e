// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// listingRunnable is a cluster-aware runnable that records, for each cluster it is engaged with, whether the
// provider listed that cluster at that moment.
type listingRunnable struct {
	provider *kubeconfig.Provider

	mu     sync.Mutex
	listed map[multicluster.ClusterName]bool
}

func (r *listingRunnable) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

func (r *listingRunnable) Engage(_ context.Context, name multicluster.ClusterName, _ cluster.Cluster) error {
	listed := slices.Contains(r.provider.ListClusters(), name)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.listed[name] = listed
	return nil
}

func (r *listingRunnable) seen(name multicluster.ClusterName) (listed, engaged bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	listed, engaged = r.listed[name]
	return listed, engaged
}

// A component that reacts to a cluster's engagement (here a cluster-aware runnable's Engage; a controller's first
// event of the cluster comes later still) finds the cluster in ListClusters: a program that syncs objects to every
// listed cluster when one joins does not miss the cluster that joined.
func TestListClustersIncludesAClusterBeingEngaged(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "kc-list", mcenvtest.HostName)
	var runnable *listingRunnable
	f := startFleetController(t, kubeconfig.Options{Namespace: ns}, ns, func(t *testing.T, mgr mcmanager.Manager) {
		runnable = &listingRunnable{provider: mgr.GetProvider().(*kubeconfig.Provider), listed: map[multicluster.ClusterName]bool{}}
		if err := mgr.Add(runnable); err != nil {
			t.Fatal(err)
		}
	})
	if err := hostClient(t).Create(quietContext(t), kubeconfigSecret(ns, "joining", memberKubeconfig(t, "member-0"))); err != nil {
		t.Fatal(err)
	}
	f.waitClusters(t, "joining")
	harness.Eventually(t, shortTimeout, "the runnable engaged with joining", func() bool {
		_, engaged := runnable.seen("joining")
		return engaged
	})
	if listed, _ := runnable.seen("joining"); !listed {
		t.Error("ListClusters did not list the cluster while it was being engaged")
	}
}
