// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/rest"
)

// memberProfileWindow is how long the CPU profile of a member's API server covers, from the start of an arm.
const memberProfileWindow = 5 * time.Second

// startMemberCPUProfile starts a CPU profile of the API server of the member cfg reaches, covering the first
// memberProfileWindow of an arm (Options.ArmCPUProfiles), taken from its /debug/pprof endpoint; the function it
// returns waits for the profile and writes it to Out as cpu-member-<slug>.pprof. Without that option, it does
// nothing.
func startMemberCPUProfile(ctx context.Context, o Options, cfg *rest.Config, slug string) (wait func() error) {
	if !o.ArmCPUProfiles || o.Out == "" {
		return func() error { return nil }
	}
	done := make(chan error, 1)
	go func() { done <- memberCPUProfile(ctx, cfg, filepath.Join(o.Out, "cpu-member-"+slug+".pprof")) }()
	return func() error { return <-done }
}

// memberCPUProfile writes a CPU profile of memberProfileWindow of the API server cfg reaches to path.
func memberCPUProfile(ctx context.Context, cfg *rest.Config, path string) error {
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	url := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", strings.TrimSuffix(cfg.Host, "/"), int(memberProfileWindow/time.Second))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("profiling a member: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profiling a member: %s", resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, resp.Body)
	return errors.Join(err, f.Close())
}
