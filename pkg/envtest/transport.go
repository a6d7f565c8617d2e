// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"fmt"
	"net/http"
	"time"

	"k8s.io/client-go/rest"
)

// privateHTTPClient returns an HTTP client for the API server of cfg that authenticates with cfg's client
// certificate and keeps no connections open. The kit uses it instead of client-go's shared, cached transports so
// that its own requests leave no goroutines behind in the caller's tests (for example for goleak). cfg must
// authenticate by client certificate, as the kit's admin configs do.
func privateHTTPClient(cfg *rest.Config) (*http.Client, error) {
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("unable to build a TLS configuration for %s: %w", cfg.Host, err)
	}
	return &http.Client{
		Transport: &http.Transport{TLSClientConfig: tlsConfig, DisableKeepAlives: true},
		Timeout:   30 * time.Second,
	}, nil
}
