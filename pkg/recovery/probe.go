// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package recovery

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
)

// Unreachable reports whether err says that the API server could not be reached or could not serve at all, as
// opposed to an answer about the request (forbidden, not found, gone, too many requests): connection refused,
// reset or lost, a probable end of the connection, a network timeout, a host or network that cannot be reached, or
// a 503 Service Unavailable.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	if apierrors.IsServiceUnavailable(err) {
		return true
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return false
	}
	return utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) ||
		utilnet.IsHTTP2ConnectionLost(err) || utilnet.IsTimeout(err) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, context.DeadlineExceeded)
}

// readinessProbe returns a probe that GETs /readyz of the API server of cfg with httpClient, or with a client
// built from cfg when httpClient is nil (built on first use: a healthy cluster never needs it). Any answer but 429
// and 5xx counts: the server is up and serving requests.
func readinessProbe(cfg *rest.Config, httpClient *http.Client) probeFunc {
	var (
		once    sync.Once
		client  *http.Client
		url     string
		initErr error
	)
	return func(ctx context.Context) error {
		once.Do(func() {
			base, _, err := rest.DefaultServerUrlFor(cfg)
			if err != nil {
				initErr = fmt.Errorf("readiness probe: %w", err)
				return
			}
			url = base.JoinPath("readyz").String()
			client = httpClient
			if client == nil {
				client, initErr = rest.HTTPClientFor(cfg)
			}
		})
		if initErr != nil {
			return initErr
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= http.StatusInternalServerError {
			return fmt.Errorf("readiness probe: the API server answered %d", resp.StatusCode)
		}
		return nil
	}
}
