// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// target is the engager's target for a context of a kubeconfig file.
func (p *Provider) target(path, contextName string, state *fileState) clusters.Target {
	return clusters.Target{Config: state.contexts[contextName], Source: fmt.Sprintf("context %q of %s", contextName, path)}
}

// Get returns the cluster with the given name (see ClusterName), or an error matching
// multicluster.ErrClusterNotFound if the provider has none of that name. A cluster is retrievable from before it
// is engaged until it is disengaged.
func (p *Provider) Get(ctx context.Context, clusterName multicluster.ClusterName) (cluster.Cluster, error) {
	return p.Clusters.Get(ctx, clusterName)
}
