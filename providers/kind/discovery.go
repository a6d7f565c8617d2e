package kind

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	kindcluster "sigs.k8s.io/kind/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/informer"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/pkg/recovery"
	"sigs.k8s.io/multicluster-runtime/pkg/restmapper"
)

// discover polls the lister until ctx is done and keeps the engaged clusters in line with the kind clusters.
func (p *Provider) discover(ctx context.Context, aware multicluster.Aware) error {
	log := logf.FromContext(ctx).WithName("kind-provider")
	lister := p.opts.Lister
	if lister == nil {
		lister = kindcluster.NewProvider()
	}

	var workers sync.WaitGroup
	defer func() {
		workers.Wait()
		p.mu.Lock()
		defer p.mu.Unlock()
		for name := range p.known {
			p.clusters.Remove(multicluster.ClusterName(name))
		}
		clear(p.known)
	}()

	ticker := time.NewTicker(p.opts.PollInterval)
	defer ticker.Stop()
	for {
		p.poll(ctx, log, lister, aware, &workers)
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// poll lists the kind clusters once: clusters new or with a changed kubeconfig are engaged in the background,
// clusters that are gone are disengaged.
func (p *Provider) poll(ctx context.Context, log logr.Logger, lister ClusterLister, aware multicluster.Aware, workers *sync.WaitGroup) {
	names, err := lister.List()
	if err != nil {
		log.Error(err, "Cannot list kind clusters, retrying at the next poll", "pollInterval", p.opts.PollInterval)
		return
	}
	names = slices.DeleteFunc(names, func(name string) bool { return !strings.HasPrefix(name, p.opts.Prefix) })

	for _, name := range names {
		p.mu.Lock()
		m := p.known[name]
		busy := m != nil && m.busy
		p.mu.Unlock()
		if busy {
			continue
		}
		kubeconfig, err := lister.KubeConfig(name, false)
		if err != nil {
			log.Error(err, "Cannot read the kubeconfig of kind cluster, retrying at the next poll", "cluster", name)
			continue
		}
		p.mu.Lock()
		m = p.known[name]
		if m == nil {
			m = &member{}
			p.known[name] = m
		}
		if m.kubeconfig == kubeconfig || ctx.Err() != nil {
			p.mu.Unlock()
			continue
		}
		m.busy = true
		p.mu.Unlock()

		workers.Add(1)
		go func() {
			defer workers.Done()
			p.engage(ctx, log, name, kubeconfig, aware)
		}()
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	for name, m := range p.known {
		if m.busy || slices.Contains(names, name) {
			continue
		}
		delete(p.known, name)
		p.clusters.Remove(multicluster.ClusterName(name))
		log.Info("Disengaged kind cluster: it is gone", "cluster", name)
	}
}

// engage builds the named cluster from its kubeconfig and engages it, replacing the cluster engaged under the name
// before, if any. On failure the previous cluster (if any) stays and the next poll tries again.
func (p *Provider) engage(ctx context.Context, log logr.Logger, name, kubeconfig string, aware multicluster.Aware) {
	err := p.engageCluster(ctx, name, kubeconfig, aware)

	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.known[name]
	if m == nil {
		return
	}
	m.busy = false
	if err != nil {
		if ctx.Err() == nil {
			log.Error(err, "Cannot engage kind cluster, retrying at the next poll", "cluster", name)
		}
		return
	}
	replaced := m.kubeconfig != ""
	m.kubeconfig = kubeconfig
	if replaced {
		log.Info("Replaced kind cluster: its kubeconfig changed", "cluster", name)
	} else {
		log.Info("Engaged kind cluster", "cluster", name)
	}
}

func (p *Provider) engageCluster(ctx context.Context, name, kubeconfig string, aware multicluster.Aware) error {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return fmt.Errorf("kind cluster %q: %w", name, err)
	}
	for _, opt := range p.opts.RESTOptions {
		if err := opt(cfg); err != nil {
			return fmt.Errorf("kind cluster %q: applying REST options: %w", name, err)
		}
	}
	cl, err := cluster.New(cfg, slices.Concat(p.opts.ClusterOptions,
		[]cluster.Option{informer.ClusterOption(), recovery.ClusterOption(multicluster.ClusterName(name), cfg),
			restmapper.ClusterOption()})...)
	if err != nil {
		return fmt.Errorf("kind cluster %q: creating cluster: %w", name, err)
	}
	if err := p.clusters.AddOrReplace(ctx, multicluster.ClusterName(name), cl, aware); err != nil {
		return fmt.Errorf("kind cluster %q: %w", name, err)
	}
	return nil
}

// restConfig parses a kubeconfig without echoing its contents in errors: they carry credentials.
func restConfig(kubeconfig string) (*rest.Config, error) {
	cc, err := clientcmd.Load([]byte(kubeconfig))
	if err != nil {
		return nil, errors.New("cannot parse kubeconfig")
	}
	cfg, err := clientcmd.NewDefaultClientConfig(*cc, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("invalid kubeconfig: %w", err)
	}
	return cfg, nil
}
