// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfigstrategy

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
)

const (
	// SecretLabelKeyClusterInventoryConsumer labels a kubeconfig Secret with the consumer (the controller) it is
	// for.
	//
	// Deprecated: the Secret strategy is deprecated; use Option.AccessProvider.
	SecretLabelKeyClusterInventoryConsumer = "x-k8s.io/cluster-inventory-consumer"
	// SecretLabelKeyClusterProfile labels a kubeconfig Secret with the name of the ClusterProfile (in the Secret's
	// namespace) whose cluster it reaches.
	//
	// Deprecated: the Secret strategy is deprecated; use Option.AccessProvider.
	SecretLabelKeyClusterProfile = "x-k8s.io/cluster-profile"
	// SecretDataKeyKubeConfig is the data key of the kubeconfig in the Secret.
	//
	// Deprecated: the Secret strategy is deprecated; use Option.AccessProvider.
	SecretDataKeyKubeConfig = "Config"
)

// SecretStrategyOption configures the Secret strategy: a profile's kubeconfig is read from the Secret in its
// namespace labelled SecretLabelKeyClusterInventoryConsumer=ConsumerName and SecretLabelKeyClusterProfile=<profile
// name>, under the key SecretDataKeyKubeConfig.
//
// Deprecated: use AccessProviderOption; KEP-5339 access providers replace kubeconfig Secrets.
type SecretStrategyOption struct {
	// ConsumerName is the value of the consumer label the Secrets must carry: the name of this controller.
	ConsumerName string

	// KubeconfigPolicy says what the kubeconfigs of the Secrets may make the controller do. The zero value, the
	// default, refuses exec credential plugins, auth-providers, files of the controller's filesystem (tokenFile,
	// client-certificate, client-key, certificate-authority) and insecure TLS: whoever can write a labelled
	// Secret in a profile's namespace could otherwise run programs in the controller's container or send its files
	// to a server of their choosing. A refused kubeconfig is reported like a malformed one (a Warning Event on the
	// ClusterProfile and an error naming the profile, the field and the option that would allow it). See
	// clusters.KubeconfigPolicy and docs/security.md.
	KubeconfigPolicy clusters.KubeconfigPolicy
}

// secretStrategy reads kubeconfigs from labelled Secrets.
type secretStrategy struct {
	consumer string
	policy   clusters.KubeconfigPolicy
}

// GetKubeConfig reads the kubeconfig of the Secret in clp's namespace labelled with the consumer and clp's name.
// With several such Secrets, the first by name is used.
func (s *secretStrategy) GetKubeConfig(ctx context.Context, cli client.Client, clp *clusterinventoryv1alpha1.ClusterProfile) (*rest.Config, error) {
	profile := clp.Namespace + "/" + clp.Name
	var secrets corev1.SecretList
	if err := cli.List(ctx, &secrets, client.InNamespace(clp.Namespace), client.MatchingLabels{
		SecretLabelKeyClusterInventoryConsumer: s.consumer,
		SecretLabelKeyClusterProfile:           clp.Name,
	}); err != nil {
		return nil, fmt.Errorf("cluster profile %s: listing its kubeconfig Secrets: %w", profile, err)
	}
	if len(secrets.Items) == 0 {
		return nil, fmt.Errorf("cluster profile %s: no Secret labelled %s=%s and %s=%s in namespace %s",
			profile, SecretLabelKeyClusterInventoryConsumer, s.consumer, SecretLabelKeyClusterProfile, clp.Name, clp.Namespace)
	}
	slices.SortFunc(secrets.Items, func(a, b corev1.Secret) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	secret := secrets.Items[0]
	data := secret.Data[SecretDataKeyKubeConfig]
	if len(data) == 0 {
		return nil, fmt.Errorf("cluster profile %s: Secret %s has no key %q", profile, secret.Name, SecretDataKeyKubeConfig)
	}
	cfg, err := clusters.RESTConfigFromKubeconfig(data, s.policy)
	if err != nil {
		return nil, fmt.Errorf("cluster profile %s: Secret %s: %w", profile, secret.Name, err)
	}
	return cfg, nil
}

// CustomWatches watches the consumer's labelled Secrets and re-reconciles the profile each names.
func (s *secretStrategy) CustomWatches() []CustomWatch {
	forConsumer := predicate.NewPredicateFuncs(func(obj client.Object) bool {
		return obj.GetLabels()[SecretLabelKeyClusterInventoryConsumer] == s.consumer
	})
	return []CustomWatch{{
		Object: &corev1.Secret{},
		EventHandler: handler.EnqueueRequestsFromMapFunc(func(_ context.Context, obj client.Object) []reconcile.Request {
			profile := obj.GetLabels()[SecretLabelKeyClusterProfile]
			if profile == "" {
				return nil
			}
			return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: obj.GetNamespace(), Name: profile}}}
		}),
		Opts: []builder.WatchesOption{builder.WithPredicates(forConsumer)},
	}}
}
