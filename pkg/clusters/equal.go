// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"reflect"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
)

// EqualClusters reports whether two clusters reach the same API server with the same identity: their rest.Configs
// have the same endpoint, TLS settings, credentials, impersonation, proxy and rate limits. Function-valued fields
// (dialers, transport wrappers) are not compared.
func EqualClusters[T cluster.Cluster](a, b T) bool {
	return EqualConfigs(a.GetConfig(), b.GetConfig())
}

// EqualConfigs reports whether two rest.Configs reach the same API server with the same identity. See
// EqualClusters.
func EqualConfigs(a, b *rest.Config) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Host == b.Host &&
		a.APIPath == b.APIPath &&
		a.Username == b.Username &&
		a.Password == b.Password &&
		a.BearerToken == b.BearerToken &&
		a.BearerTokenFile == b.BearerTokenFile &&
		a.UserAgent == b.UserAgent &&
		a.QPS == b.QPS &&
		a.Burst == b.Burst &&
		a.Timeout == b.Timeout &&
		a.DisableCompression == b.DisableCompression &&
		reflect.DeepEqual(a.TLSClientConfig, b.TLSClientConfig) &&
		reflect.DeepEqual(a.Impersonate, b.Impersonate) &&
		reflect.DeepEqual(a.ExecProvider, b.ExecProvider) &&
		reflect.DeepEqual(a.AuthProvider, b.AuthProvider) &&
		a.ContentType == b.ContentType &&
		a.AcceptContentTypes == b.AcceptContentTypes &&
		sameProxy(a, b)
}

// sameProxy compares the proxy settings as far as Go allows: both unset, or both set (functions cannot be compared,
// so two different proxy functions count as equal).
func sameProxy(a, b *rest.Config) bool {
	return (a.Proxy == nil) == (b.Proxy == nil)
}
