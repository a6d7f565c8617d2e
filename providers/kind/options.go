// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kind

import (
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	kindcluster "sigs.k8s.io/kind/pkg/cluster"
)

// DefaultPollInterval is how often the provider asks kind for its clusters when Options.PollInterval is unset.
const DefaultPollInterval = 5 * time.Second

// ClusterLister lists kind clusters and returns their kubeconfigs. kind's *cluster.Provider
// (sigs.k8s.io/kind/pkg/cluster) implements it and is the default; tests and other environments can plug in their
// own.
type ClusterLister interface {
	// List returns the names of the kind clusters.
	List() ([]string, error)

	// KubeConfig returns the kubeconfig of the named cluster. With internal false, the kubeconfig reaches the API
	// server from the host the provider runs on.
	KubeConfig(name string, internal bool) (string, error)
}

var _ ClusterLister = &kindcluster.Provider{}

// Options are the options of a kind provider. The zero value is valid: see each field for its default.
type Options struct {
	// Prefix, if set, restricts the provider to kind clusters whose name starts with it. Cluster names keep the
	// prefix.
	Prefix string

	// ClusterOptions are applied to every cluster.Cluster the provider builds (scheme, cache and client options),
	// which is built with clusters.NewCluster: the library's defaults fill what they leave unset.
	ClusterOptions []cluster.Option

	// RESTOptions adjust the rest.Config of every cluster (QPS, burst, timeouts) before its cluster.Cluster is
	// built. An error leaves the cluster out, reported with its name, until the next poll.
	RESTOptions []func(cfg *rest.Config) error

	// PollInterval is how often the provider lists the kind clusters. Default: DefaultPollInterval.
	PollInterval time.Duration

	// Lister lists the clusters and reads their kubeconfigs. Default: kind's library
	// (kindcluster.NewProvider()), created when discovery starts, which detects the container runtime as the kind
	// CLI does.
	Lister ClusterLister

	// WaitCacheTimeout bounds how long a new cluster's cache may take to sync before the attempt is given up on
	// and retried on the backoff policy of clusters.Engager. Default: clusters.DefaultWaitCacheTimeout.
	WaitCacheTimeout time.Duration
}

// complete returns the options with their defaults applied. The default Lister is left nil here and created when
// discovery starts, so that New runs no command.
func (o Options) complete() Options {
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	return o
}
