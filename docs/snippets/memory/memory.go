// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package memory holds the code of the book's "memory" page (docs/advanced/memory.md): the options that trade a
// fleet controller's memory for something else, on each kind of provider. It is compiled with the rest of the
// repository, so the page cannot drift from the API.
package memory

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
)

// StripManagedFields is a kubeconfig provider whose clusters' caches drop managedFields from every object they
// hold. The file, kind, Cluster API and Cluster Inventory API providers take the same ClusterOptions.
func StripManagedFields() *kubeconfig.Provider {
	// snippet:start strip-managed-fields
	provider := kubeconfig.New(kubeconfig.Options{
		ClusterOptions: []cluster.Option{func(o *cluster.Options) {
			o.Cache.DefaultTransform = cache.TransformStripManagedFields()
		}},
	})
	// snippet:end strip-managed-fields
	return provider
}

// SelectedObjects is a kubeconfig provider whose clusters cache only the ConfigMaps labelled for the controller.
func SelectedObjects() *kubeconfig.Provider {
	// snippet:start selected-objects
	mine := labels.SelectorFromSet(labels.Set{"example.com/managed": "true"})
	provider := kubeconfig.New(kubeconfig.Options{
		ClusterOptions: []cluster.Option{func(o *cluster.Options) {
			o.Cache.ByObject = map[client.Object]cache.ByObject{
				&corev1.ConfigMap{}: {Label: mine},
			}
		}},
	})
	// snippet:end selected-objects
	return provider
}

// OwnRESTMapper is a kubeconfig provider whose clusters each discover their API server on their own, as plain
// controller-runtime clusters do.
func OwnRESTMapper() *kubeconfig.Provider {
	// snippet:start own-restmapper
	provider := kubeconfig.New(kubeconfig.Options{
		ClusterOptions: []cluster.Option{func(o *cluster.Options) {
			o.MapperProvider = apiutil.NewDynamicRESTMapper
		}},
	})
	// snippet:end own-restmapper
	return provider
}

// UncompressedResponses is a kubeconfig provider whose clusters ask their API servers for uncompressed responses.
func UncompressedResponses() *kubeconfig.Provider {
	// snippet:start uncompressed
	provider := kubeconfig.New(kubeconfig.Options{
		RESTOptions: []func(*rest.Config) error{func(cfg *rest.Config) error {
			cfg.DisableCompression = true
			return nil
		}},
	})
	// snippet:end uncompressed
	return provider
}

// CompressedWatches is a kubeconfig provider whose clusters keep their watches compressed.
func CompressedWatches() *kubeconfig.Provider {
	// snippet:start compressed-watches
	provider := kubeconfig.New(kubeconfig.Options{
		ClusterOptions: []cluster.Option{clusters.CompressedWatches()},
	})
	// snippet:end compressed-watches
	return provider
}

// BuiltByHand builds a cluster for the clusters provider as the library's providers build theirs, with a transform
// of its own.
func BuiltByHand(name multicluster.ClusterName, cfg *rest.Config) (cluster.Cluster, error) {
	// snippet:start built-by-hand
	return clusters.NewCluster(name, cfg,
		func(o *cluster.Options) { o.Cache.DefaultTransform = cache.TransformStripManagedFields() },
	)
	// snippet:end built-by-hand
}

// VirtualClusters returns the namespace provider over a shared cluster whose one cache drops managedFields: every
// virtual cluster reads from that cache.
func VirtualClusters(cfg *rest.Config) (*namespace.Provider, cluster.Cluster, error) {
	// snippet:start namespace-transform
	shared, err := cluster.New(cfg, func(o *cluster.Options) {
		o.Cache.DefaultTransform = cache.TransformStripManagedFields()
	})
	if err != nil {
		return nil, nil, err
	}
	provider := namespace.New(shared)
	// snippet:end namespace-transform
	return provider, shared, nil
}

// MetadataOnly registers a controller that caches only the metadata of the Secrets it watches, in every cluster.
func MetadataOnly(mgr mcmanager.Manager, r mcreconcile.Reconciler) error {
	// snippet:start metadata-only
	return mcbuilder.ControllerManagedBy(mgr).
		For(&corev1.Secret{}, mcbuilder.OnlyMetadata).
		Complete(r)
	// snippet:end metadata-only
}

// ClientGoInformers is a kubeconfig provider whose clusters' caches run client-go's informers, which call each event
// handler on goroutines of its own, instead of the library's synchronous ones.
func ClientGoInformers() *kubeconfig.Provider {
	// snippet:start client-go-informers
	provider := kubeconfig.New(kubeconfig.Options{
		ClusterOptions: []cluster.Option{func(o *cluster.Options) {
			o.Cache.NewInformer = toolscache.NewSharedIndexInformer
		}},
	})
	// snippet:end client-go-informers
	return provider
}
