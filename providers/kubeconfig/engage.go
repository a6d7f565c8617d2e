// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// newEngager returns the engager of the provider. It builds the clusters with clusters.NewCluster, the provider's
// defaults first (the host manager's scheme and the provider's logger, which SetupWithManager sets), then
// Options.ClusterOptions.
func (p *Provider) newEngager() *clusters.Engager {
	return clusters.NewEngager(clusters.EngagerOptions{
		WaitCacheTimeout: p.opts.WaitCacheTimeout,
		ClusterOptions:   p.opts.ClusterOptions,
		NewCluster: func(_ context.Context, name multicluster.ClusterName, t clusters.Target, opts ...cluster.Option) (cluster.Cluster, error) {
			return clusters.NewCluster(name, t.Config, append([]cluster.Option{p.clusterDefaults(name)}, opts...)...)
		},
	})
}

// clusterDefaults gives the cluster named name the host manager's scheme and the provider's logger.
func (p *Provider) clusterDefaults(name multicluster.ClusterName) cluster.Option {
	return func(o *cluster.Options) {
		o.Scheme = p.scheme
		o.Logger = p.log.WithValues("cluster", name)
	}
}

// remove tells the engager that the Secret named name describes no cluster any more, saying why.
func (p *Provider) remove(ctx context.Context, log logr.Logger, name multicluster.ClusterName, why string) {
	if _, err := p.engager.Get(ctx, name); err == nil {
		log.Info("Disengaging cluster", "reason", why)
	}
	p.engager.Remove(name)
}

// source says where the cluster of a Secret comes from, for logs and Events.
func (p *Provider) source(namespace, name string) string {
	return fmt.Sprintf("key %q of Secret %s/%s", p.opts.KubeconfigSecretKey, namespace, name)
}
