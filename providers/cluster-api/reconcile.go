// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package capi

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Event reason and action of the Warning Events the provider records on watched objects whose kubeconfig cannot be
// had; those about engaging a cluster are clusters.Engager's (clusters.ReasonEngageFailed).
const (
	reasonKubeconfigUnavailable = "KubeconfigUnavailable"
	actionReadKubeconfig        = "ReadKubeconfig"
)

// Reconcile brings the cluster of one watched object in line with it: a ready object (Options.IsReady) has its
// cluster engaged with the rest.Config of its kubeconfig, in the background, by the provider's clusters.Engager
// (which replaces the cluster when the kubeconfig changes, and retries failures with backoff); an object that is
// gone, being deleted, filtered out or not ready has its cluster disengaged. An object whose kubeconfig cannot be had
// (no Secret, a malformed one) gets a Warning Event and an error naming the cluster, and the controller retries it.
// It is the reconciler of the provider's controller on the host manager; it is not meant to be called otherwise.
func (p *Provider) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	name := multicluster.ClusterName(req.NamespacedName.String())
	log := logf.FromContext(ctx).WithValues("cluster", name)

	obj := p.opts.ObjectToWatch.DeepCopyObject().(client.Object)
	if err := p.client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			p.remove(ctx, log, name, "its object is gone")
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("cluster %q: reading its object: %w", name, err)
	}
	switch {
	case !obj.GetDeletionTimestamp().IsZero():
		p.remove(ctx, log, name, "its object is being deleted")
		return reconcile.Result{}, nil
	case !p.selected(obj):
		p.remove(ctx, log, name, "its object is filtered out by the provider's predicates")
		return reconcile.Result{}, nil
	case !p.opts.IsReady(ctx, obj):
		p.remove(ctx, log, name, "its object is not ready")
		return reconcile.Result{}, nil
	}

	cfg, err := p.restConfig(ctx, obj)
	if err != nil {
		p.engager.Eventf(obj, corev1.EventTypeWarning, reasonKubeconfigUnavailable, actionReadKubeconfig,
			"cannot build a client config for cluster %s: %v", name, err)
		return reconcile.Result{}, fmt.Errorf("cluster %q: %w", name, err)
	}
	p.engager.Want(name, clusters.Target{Config: cfg, Object: obj, Source: p.kind + " " + req.NamespacedName.String()})
	return reconcile.Result{}, nil
}

// selected reports whether every one of Options.Predicates accepts obj as a generic event. Events of watched
// objects are filtered by the predicates before they are queued, but an object also comes back through its
// kubeconfig Secret: it must pass the predicates then too.
func (p *Provider) selected(obj client.Object) bool {
	for _, pred := range p.opts.Predicates {
		if !pred.Generic(event.GenericEvent{Object: obj}) {
			return false
		}
	}
	return true
}

// remove tells the engager that the named cluster should be gone, saying why.
func (p *Provider) remove(ctx context.Context, log logr.Logger, name multicluster.ClusterName, why string) {
	if _, err := p.engager.Get(ctx, name); err == nil {
		log.Info("Disengaging cluster: " + why)
	}
	p.engager.Remove(name)
}

// restConfig returns the rest.Config of obj's cluster, from the kubeconfig GetSecret returns.
func (p *Provider) restConfig(ctx context.Context, obj client.Object) (*rest.Config, error) {
	data, err := p.opts.GetSecret(ctx, p.direct, obj)
	if err != nil {
		return nil, err
	}
	return clusters.RESTConfigFromKubeconfig(data, p.opts.KubeconfigPolicy)
}

// newCluster is the engager's constructor: Options.NewCluster with the watched object, ClusterOptions and the
// library's defaults (clusters.DefaultClusterOptions), so that it builds clusters as clusters.NewCluster does.
func (p *Provider) newCluster(ctx context.Context, name multicluster.ClusterName, t clusters.Target, opts ...cluster.Option) (cluster.Cluster, error) {
	return p.opts.NewCluster(ctx, t.Object.(client.Object), t.Config, append(opts, clusters.DefaultClusterOptions(name, t.Config)...)...)
}
