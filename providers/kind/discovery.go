// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kind

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	kindcluster "sigs.k8s.io/kind/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// discover runs the engager with aware and polls the lister until ctx is done, telling the engager which kind
// clusters there are; then it waits for the engager to stop the clusters.
func (p *Provider) discover(ctx context.Context, aware multicluster.Aware) error {
	log := logf.FromContext(ctx).WithName("kind-provider")
	ctx, cancel := context.WithCancel(logf.IntoContext(ctx, log))
	defer cancel()
	lister := p.opts.Lister
	if lister == nil {
		lister = kindcluster.NewProvider()
	}
	engaged := make(chan error, 1)
	go func() { engaged <- p.engager.Start(ctx, aware) }()

	ticker := time.NewTicker(p.opts.PollInterval)
	defer ticker.Stop()
	for {
		p.poll(log, lister)
		select {
		case <-ctx.Done():
			cancel()
			return <-engaged
		case <-ticker.C:
		}
	}
}

// poll lists the kind clusters once and tells the engager: each cluster is wanted with its current kubeconfig (the
// engager engages new ones and replaces those whose kubeconfig changed), and the clusters that are gone are
// removed. A cluster whose kubeconfig cannot be read or used keeps what it has until a later poll.
func (p *Provider) poll(log logr.Logger, lister ClusterLister) {
	names, err := lister.List()
	if err != nil {
		log.Error(err, "Cannot list kind clusters, retrying at the next poll", "pollInterval", p.opts.PollInterval)
		return
	}
	names = slices.DeleteFunc(names, func(name string) bool { return !strings.HasPrefix(name, p.opts.Prefix) })

	for _, name := range names {
		target, err := p.target(lister, name)
		if err != nil {
			log.Error(err, "Cannot engage kind cluster, retrying at the next poll", "cluster", name)
			continue
		}
		p.engager.Want(multicluster.ClusterName(name), target)
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	for name := range p.known {
		if !slices.Contains(names, name) {
			delete(p.known, name)
			log.Info("Kind cluster is gone", "cluster", name)
			p.engager.Remove(multicluster.ClusterName(name))
		}
	}
	for _, name := range names {
		p.known[name] = true
	}
}

// target returns what the named kind cluster should be: its kubeconfig's rest.Config, adjusted by RESTOptions.
func (p *Provider) target(lister ClusterLister, name string) (clusters.Target, error) {
	kubeconfig, err := lister.KubeConfig(name, false)
	if err != nil {
		return clusters.Target{}, fmt.Errorf("kind cluster %q: reading its kubeconfig: %w", name, err)
	}
	cfg, err := parseKubeconfig([]byte(kubeconfig))
	if err != nil {
		return clusters.Target{}, fmt.Errorf("kind cluster %q: %w", name, err)
	}
	for _, opt := range p.opts.RESTOptions {
		if err := opt(cfg); err != nil {
			return clusters.Target{}, fmt.Errorf("kind cluster %q: applying REST options: %w", name, err)
		}
	}
	return clusters.Target{Config: cfg, Source: fmt.Sprintf("kind cluster %q", name)}, nil
}

// parseKubeconfig turns a kind cluster's kubeconfig into a rest.Config. Its error never echoes the kubeconfig,
// which carries credentials.
func parseKubeconfig(kubeconfig []byte) (*rest.Config, error) {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return nil, errors.New("cannot parse its kubeconfig")
	}
	return cfg, nil
}
