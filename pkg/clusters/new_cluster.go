// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"fmt"
	"slices"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/pkg/informer"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/pkg/recovery"
	"sigs.k8s.io/multicluster-runtime/pkg/restmapper"
)

// NewCluster builds the cluster.Cluster of a member named name, reached with cfg, the way every provider of this
// repository builds its clusters. It does not start the cluster and makes no request.
//
// The caller's options are applied first, and win: each of the library's defaults fills only what they left
// unset, so an option that sets a field keeps its value. The defaults are:
//
//   - a logger with the key "cluster" set to name (cluster.Options.Logger), derived from controller-runtime's
//     global logger;
//   - informers that call their event handlers synchronously (informer.ClusterOption), unless an option set
//     cluster.Options.Cache.NewInformer;
//   - outage recovery (recovery.ClusterOption): informers resume as soon as the member answers again after an
//     outage, and a watchdog logs requests the member leaves unanswered. It wraps the informer constructor and the
//     HTTP client, whichever the options chose;
//   - discovery and REST mappings shared with the other clusters that serve the same APIs
//     (restmapper.ClusterOption), unless an option set cluster.Options.MapperProvider;
//   - an HTTP client of cfg, unless an option set cluster.Options.HTTPClient, whose requests open new connections
//     to the member one at a time and share them, with those of every cluster reached at the same address over the
//     same transport (SharedFirstConnection); once the member has answered over HTTP/2, its requests go over a
//     connection pool of the transport client-go built for cfg (not of cfg.Transport, if set) that opens the next
//     connection only when the ones it has carry as many streams as the member allows, so that watches filling the
//     connections do not make each request that finds them full open its own; and whose watches ask for
//     uncompressed responses (UncompressedWatches, unless cfg.DisableCompression is set), which saves about 42 KiB
//     of heap per open watch and costs bandwidth as events arrive (and as the initial list streams, where
//     client-go lists through the watch). The option CompressedWatches keeps watches compressed, and WrapTransport
//     adds round trippers of the caller's to the client.
//
// cfg is copied; the caller may change it afterwards. Errors name the cluster.
func NewCluster(name multicluster.ClusterName, cfg *rest.Config, opts ...cluster.Option) (cluster.Cluster, error) {
	if cfg == nil {
		return nil, fmt.Errorf("cluster %q: cannot build a cluster without a rest.Config", name)
	}
	cfg = rest.CopyConfig(cfg)
	cl, err := cluster.New(cfg, append(slices.Clip(opts), DefaultClusterOptions(name, cfg)...)...)
	if err != nil {
		return nil, fmt.Errorf("cluster %q: %w", name, err)
	}
	return cl, nil
}

// DefaultClusterOptions returns the options NewCluster applies after the caller's, which fill only what earlier
// options left unset (see NewCluster): a logger naming the cluster, synchronous informers, an HTTP client whose
// first requests share their connection and whose watches are uncompressed, outage recovery for the cluster named
// name reached with cfg, and shared discovery. A constructor that builds clusters with cluster.New (such as the
// NewCluster hook of a provider's options) appends them to its options to build clusters as NewCluster does.
func DefaultClusterOptions(name multicluster.ClusterName, cfg *rest.Config) []cluster.Option {
	return []cluster.Option{defaultLogger(name), informer.ClusterOption(), httpClientOption(cfg),
		recovery.ClusterOption(name, cfg), restmapper.ClusterOption()}
}

// defaultLogger gives the cluster a logger that names it, unless an option set one.
func defaultLogger(name multicluster.ClusterName) cluster.Option {
	return func(o *cluster.Options) {
		if o.Logger.GetSink() == nil {
			o.Logger = logf.Log.WithName("cluster").WithValues("cluster", name)
		}
	}
}
