// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusterinventoryapi

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/kubeconfigstrategy"
)

// Provider is a multicluster.Provider whose clusters are the ClusterProfiles of a hub. Create it with New, pass it
// to the manager (which starts it) and register it with SetupWithManager.
type Provider struct {
	// EngagedClusters makes the provider a multicluster.Provider, ProviderRunnable and ClusterLister: Start, Get,
	// IndexField and ClusterNames are its engager's.
	clusters.EngagedClusters
	opts     Options
	strategy kubeconfigstrategy.Interface
	// engager engages the clusters of the profiles; the controller tells it what each profile's cluster is.
	engager *clusters.Engager

	// Set by SetupWithManager, before the manager starts the provider.
	client client.Client

	// mu guards names and renamed.
	mu sync.Mutex
	// names holds the cluster name each profile (by "<namespace>/<name>") is wanted under.
	names map[string]multicluster.ClusterName
	// renamed holds, for a profile whose cluster name changed, the old name by the new one, until the cluster is
	// engaged under the new name and the old one can go.
	renamed map[multicluster.ClusterName]multicluster.ClusterName
}

// New returns a provider for opts. It returns an error unless opts.KubeconfigStrategyOption selects exactly one
// complete strategy, normally AccessProvider. Register the provider with SetupWithManager.
func New(opts Options) (*Provider, error) {
	strategy, err := kubeconfigstrategy.New(context.Background(), opts.KubeconfigStrategyOption)
	if err != nil {
		return nil, fmt.Errorf("cluster-inventory-api provider: %w", err)
	}
	p := &Provider{
		opts:     opts.complete(),
		strategy: strategy,
		names:    map[string]multicluster.ClusterName{},
		renamed:  map[multicluster.ClusterName]multicluster.ClusterName{},
	}
	p.engager = clusters.NewEngager(clusters.EngagerOptions{
		WaitCacheTimeout: p.opts.WaitCacheTimeout,
		ClusterOptions:   p.opts.ClusterOptions,
		NewCluster:       p.newCluster,
		OnOutcome:        p.onOutcome,
	})
	p.EngagedClusters = p.engager.Engaged()
	return p, nil
}

// SetupWithManager registers the provider's controller of ClusterProfiles, and its strategy's watches, with the
// host (hub) manager of mgr. The ClusterProfile types of sigs.k8s.io/cluster-inventory-api are added to the hub
// manager's scheme unless it has them already (as in a program that called their AddToScheme itself); a scheme
// that has other Go types for their kinds is an error, not a panic. It engages nothing: the manager starts the
// provider (Start), which engages the clusters. It must be called once, before mgr starts.
func (p *Provider) SetupWithManager(mgr mcmanager.Manager) error {
	if err := p.engager.SetupWithManager(mgr, p.opts.ControllerName); err != nil {
		return fmt.Errorf("cluster-inventory-api provider: %w", err)
	}
	host := mgr.GetLocalManager()
	if err := addToScheme(host.GetScheme()); err != nil {
		return fmt.Errorf("cluster-inventory-api provider: %w", err)
	}
	p.client = host.GetClient()

	b := ctrl.NewControllerManagedBy(host).
		Named(p.opts.ControllerName).
		For(&clusterinventoryv1alpha1.ClusterProfile{})
	for _, w := range p.strategy.CustomWatches() {
		b = b.Watches(w.Object, w.EventHandler, w.Opts...)
	}
	if err := b.Complete(p); err != nil {
		return fmt.Errorf("cluster-inventory-api provider: registering the controller: %w", err)
	}
	return nil
}

// addToScheme adds the published ClusterProfile types to s unless s has them already. It returns an error, where
// runtime.Scheme would panic, if s has another Go type registered for the kind of one of them.
func addToScheme(s *runtime.Scheme) error {
	known := s.AllKnownTypes()
	missing := false
	for _, obj := range []runtime.Object{&clusterinventoryv1alpha1.ClusterProfile{}, &clusterinventoryv1alpha1.ClusterProfileList{}} {
		want := reflect.TypeOf(obj).Elem()
		gvk := clusterinventoryv1alpha1.GroupVersion.WithKind(want.Name())
		switch got, ok := known[gvk]; {
		case !ok:
			missing = true
		case got != want:
			return fmt.Errorf("the manager's scheme has %s registered for %s, where the provider reads %s: register %s.AddToScheme instead",
				got, gvk, want, want.PkgPath())
		}
	}
	if !missing {
		return nil
	}
	if err := clusterinventoryv1alpha1.AddToScheme(s); err != nil {
		return fmt.Errorf("adding the ClusterProfile types to the scheme: %w", err)
	}
	return nil
}
