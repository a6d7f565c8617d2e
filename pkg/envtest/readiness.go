// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
)

// readyPollInterval is how often waitReady asks an API server whether it is ready.
const readyPollInterval = 50 * time.Millisecond

// waitReady polls the /readyz endpoint of the API server cfg points at until it answers 200 OK, ctx is done or
// timeout has passed.
func waitReady(ctx context.Context, cfg *rest.Config, timeout time.Duration) error {
	client, err := privateHTTPClient(cfg)
	if err != nil {
		return err
	}
	client.Timeout = 5 * time.Second
	url := strings.TrimSuffix(cfg.Host, "/") + "/readyz"

	var lastErr error
	err = wait.PollUntilContextTimeout(ctx, readyPollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		resp, err := client.Do(req)
		if err != nil {
			lastErr = err
			return false, nil
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		if resp.StatusCode == http.StatusOK {
			return true, nil
		}
		lastErr = fmt.Errorf("%s answered %d: %s", url, resp.StatusCode, strings.TrimSpace(string(body)))
		return false, nil
	})
	if err != nil {
		if lastErr != nil {
			err = errors.Join(err, lastErr)
		}
		return fmt.Errorf("API server at %s did not become ready: %w", cfg.Host, err)
	}
	return nil
}
