// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfigstrategy

import (
	"context"
	"errors"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
)

// Interface obtains the rest.Config of a ClusterProfile's cluster.
type Interface interface {
	// GetKubeConfig returns the rest.Config reaching clp's cluster; cli is a client of the hub. Errors name the
	// profile and never contain credentials.
	GetKubeConfig(ctx context.Context, cli client.Client, clp *clusterinventoryv1alpha1.ClusterProfile) (*rest.Config, error)

	// CustomWatches are extra watches on the hub whose events re-reconcile profiles, such as the Secrets of the
	// Secret strategy. Nil when the strategy needs none.
	CustomWatches() []CustomWatch
}

// CustomWatch is a watch the provider's controller adds on the hub.
type CustomWatch struct {
	// Object is the kind of object watched.
	Object client.Object
	// EventHandler maps the object's events to the ClusterProfiles to reconcile.
	EventHandler handler.TypedEventHandler[client.Object, reconcile.Request]
	// Opts are the watch's options, such as predicates.
	Opts []builder.WatchesOption
}

// Option selects a strategy: set exactly one field. AccessProvider is the strategy to use; the others are kept for
// programs written against the earlier API.
type Option struct {
	// Secret reads kubeconfigs from labelled Secrets on the hub.
	//
	// Deprecated: use AccessProvider; KEP-5339 access providers replace kubeconfig Secrets.
	Secret *SecretStrategyOption

	// CredentialsProvider builds configs from credential plugins; it is the earlier name of AccessProvider, of the
	// same type, and behaves the same.
	//
	// Deprecated: use AccessProvider.
	CredentialsProvider *CredentialsProviderOption

	// AccessProvider builds configs from the profile's access providers and the credential plugins of a KEP-5339
	// access-provider file.
	AccessProvider *AccessProviderOption
}

// New returns the strategy that option selects. It returns an error unless exactly one strategy is set and
// complete. The context is not kept.
func New(_ context.Context, option Option) (Interface, error) {
	set := 0
	for _, isSet := range []bool{option.Secret != nil, option.CredentialsProvider != nil, option.AccessProvider != nil} {
		if isSet {
			set++
		}
	}
	switch {
	case set == 0:
		return nil, errors.New("kubeconfig strategy: set AccessProvider (or the deprecated Secret or CredentialsProvider)")
	case set > 1:
		return nil, errors.New("kubeconfig strategy: set only one of AccessProvider, Secret and CredentialsProvider")
	case option.Secret != nil:
		if option.Secret.ConsumerName == "" {
			return nil, errors.New("kubeconfig strategy: the Secret strategy needs a ConsumerName")
		}
		return &secretStrategy{consumer: option.Secret.ConsumerName, policy: option.Secret.KubeconfigPolicy}, nil
	case option.CredentialsProvider != nil:
		return newAccessStrategy("CredentialsProvider", *option.CredentialsProvider)
	default:
		return newAccessStrategy("AccessProvider", *option.AccessProvider)
	}
}
