// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusterinventoryapi

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Reason and action of the Warning events the provider records on ClusterProfiles whose client config cannot be
// built; those about engaging a cluster are clusters.Engager's (clusters.ReasonEngageFailed).
const (
	reasonKubeconfigUnavailable = "KubeconfigUnavailable"
	actionBuildClientConfig     = "BuildClientConfig"
)

// Reconcile brings the cluster of one ClusterProfile in line with it: a ready profile has its cluster engaged with
// its rest.Config, in the background, by the provider's clusters.Engager (which checks the config against the
// cluster first, replaces the cluster when the config changes, and retries failures with backoff); a profile that
// is not ready or is gone is disengaged. When the rest.Config cannot be obtained (no configured access provider, a
// malformed entry, a missing Secret), the error names the profile's cluster, a Warning event is recorded on the
// profile and the controller retries the profile; a cluster it already has engaged stays engaged with its last
// config until the profile stops being ready or is deleted. It is the provider's controller's reconciler on the hub;
// it is not meant to be called otherwise.
func (p *Provider) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	key := req.String()
	log := logf.FromContext(ctx).WithValues("clusterProfile", key)

	clp := &clusterinventoryv1alpha1.ClusterProfile{}
	if err := p.client.Get(ctx, req.NamespacedName, clp); err != nil {
		if apierrors.IsNotFound(err) {
			p.remove(log, key, "the ClusterProfile is gone")
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("cluster profile %s: %w", key, err)
	}
	name := p.opts.ClusterName(clp)
	log = log.WithValues("cluster", name)
	if !p.opts.IsReady(ctx, clp) {
		p.remove(log, key, "the ClusterProfile is not ready")
		return reconcile.Result{}, nil
	}

	cfg, err := p.strategy.GetKubeConfig(ctx, p.client, clp)
	if err != nil {
		p.engager.Eventf(clp, corev1.EventTypeWarning, reasonKubeconfigUnavailable, actionBuildClientConfig,
			"cannot build a client config for cluster %s: %v", name, err)
		return reconcile.Result{}, fmt.Errorf("cluster %q: %w", name, err)
	}

	p.mu.Lock()
	if old := p.names[key]; old != "" && old != name {
		// Renamed: the cluster under the old name goes once the new one is engaged (see onOutcome).
		p.renamed[name] = old
	}
	p.names[key] = name
	p.mu.Unlock()
	p.engager.Want(name, clusters.Target{Config: cfg, Object: clp, Source: "ClusterProfile " + key})
	return reconcile.Result{}, nil
}

// remove disengages the cluster of the profile key, under its name and under the name it had before a rename, if
// that one is still engaged.
func (p *Provider) remove(log logr.Logger, key, why string) {
	p.mu.Lock()
	name := p.names[key]
	old := p.renamed[name]
	delete(p.names, key)
	delete(p.renamed, name)
	p.mu.Unlock()
	for _, n := range []multicluster.ClusterName{name, old} {
		if n == "" {
			continue
		}
		if _, err := p.engager.Get(context.Background(), n); err == nil {
			log.Info("Disengaging cluster: "+why, "cluster", n)
		}
		p.engager.Remove(n)
	}
}

// onOutcome removes the cluster a renamed profile had under its old name, once the cluster under its new name is
// engaged.
func (p *Provider) onOutcome(o clusters.Outcome) {
	if o.Kind != clusters.OutcomeAdded && o.Kind != clusters.OutcomeReplaced && o.Kind != clusters.OutcomeUnchanged {
		return
	}
	p.mu.Lock()
	old, renamed := p.renamed[o.Name]
	delete(p.renamed, o.Name)
	p.mu.Unlock()
	if renamed {
		p.engager.Remove(old)
	}
}

// newCluster is the engager's constructor: it checks the config against the cluster (probe), then builds the
// cluster with Options.NewCluster, ClusterOptions and the library's defaults (clusters.DefaultClusterOptions).
func (p *Provider) newCluster(ctx context.Context, name multicluster.ClusterName, t clusters.Target, opts ...cluster.Option) (cluster.Cluster, error) {
	if err := p.probe(t.Config); err != nil {
		return nil, err
	}
	clp := t.Object.(*clusterinventoryv1alpha1.ClusterProfile)
	return p.opts.NewCluster(ctx, clp, t.Config, append(opts, clusters.DefaultClusterOptions(name, t.Config)...)...)
}

// probe asks the cluster for its version with cfg, so that wrong credentials, a failing credential plugin or an
// unreachable endpoint keep the cluster from being engaged.
func (p *Provider) probe(cfg *rest.Config) error {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = p.opts.ProbeTimeout
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building a client: %w", err)
	}
	if _, err := dc.ServerVersion(); err != nil {
		if cfg.ExecProvider != nil {
			return fmt.Errorf("reaching the cluster with credential plugin %s: %w", cfg.ExecProvider.Command, err)
		}
		return fmt.Errorf("reaching the cluster: %w", err)
	}
	return nil
}
