// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package customprovider is the polling provider of the book's "custom providers" page: a provider that reads its
// whole source at once, built on the provider kit's Engager. It is compiled and tested with the rest of the
// repository, so the page cannot drift from the API.
package customprovider

import (
	"context"
	"time"

	"k8s.io/client-go/rest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// snippet:start custom-provider

// Provider engages the clusters that Discover returns, polling it every Interval.
type Provider struct {
	clusters.EngagedClusters // Start, Get, IndexField, ClusterNames: what the manager sees
	engager                  *clusters.Engager

	Discover func(ctx context.Context) (map[multicluster.ClusterName]*rest.Config, error)
	Interval time.Duration
}

// New returns a provider polling discover every interval.
func New(discover func(ctx context.Context) (map[multicluster.ClusterName]*rest.Config, error), interval time.Duration) *Provider {
	e := clusters.NewEngager(clusters.EngagerOptions{})
	return &Provider{EngagedClusters: e.Engaged(), engager: e, Discover: discover, Interval: interval}
}

// Start polls until ctx ends, while the engager engages with aware: new clusters are engaged, changed ones
// replaced, vanished ones disengaged.
func (p *Provider) Start(ctx context.Context, aware multicluster.Aware) error {
	go p.poll(ctx)
	return p.engager.Start(ctx, aware)
}

func (p *Provider) poll(ctx context.Context) {
	ticker := time.NewTicker(p.Interval)
	defer ticker.Stop()
	for {
		if found, err := p.Discover(ctx); err != nil {
			logf.FromContext(ctx).Error(err, "Discovery failed, retrying")
		} else {
			want := make(map[multicluster.ClusterName]clusters.Target, len(found))
			for name, cfg := range found {
				want[name] = clusters.Target{Config: cfg, Source: "discovery"}
			}
			p.engager.WantOnly(want) // never blocks; unchanged configs are left alone
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// snippet:end custom-provider
