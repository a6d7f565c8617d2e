// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package capi

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Provider is a multicluster.Provider whose clusters are Cluster API workload clusters: one per watched object
// (Options.ObjectToWatch) in the host cluster, named "<namespace>/<name>" of the object. Build it with New, pass it
// to the multi-cluster manager (which starts it), and call SetupWithManager. All methods are safe for concurrent
// use.
type Provider struct {
	// EngagedClusters makes the provider a multicluster.Provider, ProviderRunnable and ClusterLister: Start, Get,
	// IndexField and ClusterNames are its engager's.
	clusters.EngagedClusters
	opts Options
	// engager engages the clusters of the watched objects; the controller tells it what each object's cluster is.
	engager *clusters.Engager

	// Set by SetupWithManager, before the manager starts the provider.
	client client.Client // the host's cached client, for watched objects
	direct client.Client // a client of the host that reads from the API server, for GetSecret
	kind   string        // the kind of the watched objects, for logs and Events
}

// New returns a provider configured by opts, with the defaults of Options applied. It watches nothing until
// SetupWithManager registers its controller, and engages nothing until the multi-cluster manager starts it.
func New(opts Options) *Provider {
	p := &Provider{opts: opts.complete()}
	p.engager = clusters.NewEngager(clusters.EngagerOptions{
		WaitCacheTimeout: p.opts.WaitCacheTimeout,
		ClusterOptions:   p.opts.ClusterOptions,
		NewCluster:       p.newCluster,
	})
	p.EngagedClusters = p.engager.Engaged()
	return p
}

// SetupWithManager registers the provider's controller on the host manager (mgr.GetLocalManager()). The
// controller watches Options.ObjectToWatch in every namespace, filtered by Options.Predicates, and the metadata of
// Secrets, so that a rotated "<name>-kubeconfig" Secret brings its object back. With the default ObjectToWatch it
// adds Cluster API's v1beta2 types to the host manager's scheme. It engages nothing: the manager starts the
// provider (Start), which engages the clusters. Call it once, before the manager starts.
//
// Like every controller, the provider's runs on the elected leader only. The host manager needs RBAC to list and
// watch the watched kind, to get, list and watch Secrets, and to create and patch Events (see
// config/rbac/role.yaml).
//
// It returns an error if mgr is nil, if it is called twice, or if the controller cannot be built.
func (p *Provider) SetupWithManager(mgr mcmanager.Manager) error {
	if err := p.engager.SetupWithManager(mgr, p.opts.ControllerName); err != nil {
		return fmt.Errorf("cluster-api provider: %w", err)
	}
	local := mgr.GetLocalManager()
	if _, ok := p.opts.ObjectToWatch.(*clusterv1.Cluster); ok {
		if err := clusterv1.AddToScheme(local.GetScheme()); err != nil {
			return fmt.Errorf("cluster-api provider: adding Cluster API types to the scheme: %w", err)
		}
	}
	gvk, err := apiutil.GVKForObject(p.opts.ObjectToWatch, local.GetScheme())
	if err != nil {
		return fmt.Errorf("cluster-api provider: the kind of ObjectToWatch: %w", err)
	}
	direct, err := client.New(local.GetConfig(), client.Options{
		HTTPClient: local.GetHTTPClient(),
		Scheme:     local.GetScheme(),
		Mapper:     local.GetRESTMapper(),
	})
	if err != nil {
		return fmt.Errorf("cluster-api provider: creating a client of the host cluster: %w", err)
	}
	p.client = local.GetClient()
	p.direct = direct
	p.kind = gvk.Kind

	err = ctrl.NewControllerManagedBy(local).
		Named(p.opts.ControllerName).
		For(p.opts.ObjectToWatch.DeepCopyObject().(client.Object), builder.WithPredicates(p.opts.Predicates...)).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(objectOfKubeconfigSecret), builder.OnlyMetadata).
		Complete(p)
	if err != nil {
		return fmt.Errorf("cluster-api provider: building the controller: %w", err)
	}
	return nil
}

// objectOfKubeconfigSecret maps a kubeconfig Secret to the object of the same namespace it is named after, so that
// a rotated kubeconfig is picked up.
func objectOfKubeconfigSecret(_ context.Context, secret client.Object) []reconcile.Request {
	name, ok := cutSuffix(secret.GetName(), KubeconfigSecretSuffix)
	if !ok || name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: secret.GetNamespace(), Name: name}}}
}

func cutSuffix(s, suffix string) (string, bool) {
	if len(s) < len(suffix) || s[len(s)-len(suffix):] != suffix {
		return s, false
	}
	return s[:len(s)-len(suffix)], true
}

// ListClusters is ClusterNames, under the name the provider's API has always had for it.
func (p *Provider) ListClusters() []multicluster.ClusterName {
	return p.ClusterNames()
}
