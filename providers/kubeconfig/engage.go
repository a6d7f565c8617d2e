package kubeconfig

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// newEngager returns the engager of the provider, recording Events with recorder, once SetupWithManager has given
// it a logger and a scheme: it keeps the clusters in p.clusters and builds them with clusters.NewCluster, the provider's
// defaults first (the host manager's scheme, the provider's logger), then Options.ClusterOptions.
func (p *Provider) newEngager(recorder events.EventRecorder) *clusters.Engager {
	return clusters.NewEngager(clusters.EngagerOptions{
		Clusters:       &p.clusters,
		ClusterOptions: p.opts.ClusterOptions,
		NewCluster: func(_ context.Context, name multicluster.ClusterName, t clusters.Target, opts ...cluster.Option) (cluster.Cluster, error) {
			return clusters.NewCluster(name, t.Config, append([]cluster.Option{p.clusterDefaults(name)}, opts...)...)
		},
		EventRecorder: recorder,
		Logger:        p.log,
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
	if _, err := p.clusters.Get(ctx, name); err == nil {
		log.Info("Disengaging cluster", "reason", why)
	}
	p.engager.Remove(name)
}

// source says where the cluster of a Secret comes from, for logs and Events.
func (p *Provider) source(namespace, name string) string {
	return fmt.Sprintf("key %q of Secret %s/%s", p.opts.KubeconfigSecretKey, namespace, name)
}
