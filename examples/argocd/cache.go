// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package argocd

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// LastAppliedAnnotation is kubectl's annotation that repeats an applied object, Secret data included. SecretCache
// drops it.
const LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// SecretCache is what the host manager's cache should keep of Secrets for a provider of namespace
// (cache.Options.ByObject for &corev1.Secret{}): the cluster Secrets of that namespace only, without what the
// provider never reads, their managedFields and kubectl's last-applied annotation. The provider reads the Secrets
// through that cache, so it holds every cluster Secret for as long as the manager runs.
func SecretCache(namespace string) cache.ByObject {
	return cache.ByObject{
		Namespaces: map[string]cache.Config{namespace: {}},
		Label:      labels.SelectorFromSet(labels.Set{SecretTypeLabel: SecretTypeCluster}),
		Transform:  trimSecret,
	}
}

// trimSecret drops a Secret's managedFields and last-applied annotation before the cache stores it; anything else
// is stored as it is.
func trimSecret(obj any) (any, error) {
	if secret, ok := obj.(*corev1.Secret); ok {
		secret.ManagedFields = nil
		delete(secret.Annotations, LastAppliedAnnotation)
	}
	return obj, nil
}
