// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/examples/argocd"
	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
)

// The out-of-tree arms engage their clusters through examples/argocd, a provider written as outside this
// repository would be, on the provider kit's Engager: one Argo CD cluster Secret per cluster in a namespace of the
// host, read through the host manager's cache, which keeps only those Secrets (as the example's program does).
// Every cluster of these arms sees the namespace clusterNS of its member, which the scenario prepares on every
// member: the provider's cluster options are the same for every cluster. Its requests go through namespacePaths as
// every other arm's do, added with clusters.WrapTransport since the provider builds its rest.Configs from the
// Secrets.

// armOutOfTree is the name of the out-of-tree arms.
const armOutOfTree = "out-of-tree (argocd)"

// outOfTree is the provider of an out-of-tree arm and the manager options it needs.
type outOfTree struct {
	provider *argocd.Provider
	// cacheOptions keeps only the provider's Secrets in the host manager's cache.
	cacheOptions func(*mcmanager.Options)
}

// newOutOfTree writes a cluster Secret per cluster into a new namespace of the host named after run, the i-th
// named nameOf(i) and reaching cfgOf(i), and returns the provider that engages them, each cluster seeing clusterNS.
func newOutOfTree(ctx context.Context, hostCfg *rest.Config, run, clusterNS string, n int, nameOf func(int) string, cfgOf func(int) *rest.Config) (*outOfTree, error) {
	host, err := writer(hostCfg)
	if err != nil {
		return nil, err
	}
	ns := "argocd-" + run
	if err := host.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return nil, err
	}
	if err := parallel(16, n, func(i int) error {
		secret, err := argocd.ClusterSecret(ns, nameOf(i), cfgOf(i))
		if err != nil {
			return err
		}
		return host.Create(ctx, secret)
	}); err != nil {
		return nil, fmt.Errorf("writing the cluster Secrets: %w", err)
	}
	return &outOfTree{
		provider: argocd.New(argocd.Options{Namespace: ns, ControllerName: ns, ClusterOptions: []cluster.Option{
			inNamespaceOption(clusterNS), clusters.WrapTransport(namespacePaths)}}),
		cacheOptions: func(o *mcmanager.Options) {
			o.Cache.ByObject = map[client.Object]cache.ByObject{&corev1.Secret{}: argocd.SecretCache(ns)}
		},
	}, nil
}
