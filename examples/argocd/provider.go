// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package argocd

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Defaults of Options, and the Warning Event of a Secret that cannot be read.
const (
	DefaultNamespace      = "argocd"
	DefaultControllerName = "argocd-clusters"
	ReasonInvalidSecret   = "InvalidClusterSecret"
)

// Options configures a Provider. The zero value is valid; complete applies the defaults stated on each field.
type Options struct {
	// Namespace holds the cluster Secrets. Default: DefaultNamespace.
	Namespace string
	// ControllerName names the controller that watches them on the host. Default: DefaultControllerName.
	ControllerName string
	// ClusterOptions are applied to every cluster, before the library's defaults (clusters.NewCluster), and win.
	ClusterOptions []cluster.Option
}

func (o Options) complete() Options {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.ControllerName == "" {
		o.ControllerName = DefaultControllerName
	}
	return o
}

// snippet:start provider

// Provider engages a cluster per cluster Secret, named after the Secret. Its Engager builds, engages, replaces,
// retries and stops the clusters; the embedded EngagedClusters gives the provider Start, Get, IndexField and
// ClusterNames.
type Provider struct {
	clusters.EngagedClusters
	engager *clusters.Engager
	opts    Options
	reader  client.Reader
}

var _ multicluster.ProviderRunnable = &Provider{}

// New returns a provider that engages nothing until SetupWithManager and the manager's start.
func New(opts Options) *Provider {
	opts = opts.complete()
	e := clusters.NewEngager(clusters.EngagerOptions{ClusterOptions: opts.ClusterOptions})
	return &Provider{EngagedClusters: e.Engaged(), engager: e, opts: opts}
}

// snippet:end provider

// snippet:start setup

// SetupWithManager registers a controller on the host manager that reads the Secrets of the namespace from the
// host manager's cache, and lets the Engager record Events and log as that controller. It starts nothing: the
// manager starts the provider.
func (p *Provider) SetupWithManager(mgr mcmanager.Manager) error {
	if err := p.engager.SetupWithManager(mgr, p.opts.ControllerName); err != nil {
		return err
	}
	host := mgr.GetLocalManager()
	p.reader = host.GetClient()
	inNamespace := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetNamespace() == p.opts.Namespace })
	return builder.ControllerManagedBy(host).
		Named(p.opts.ControllerName).
		For(&corev1.Secret{}, builder.WithPredicates(inNamespace)).
		Complete(p)
}

// snippet:end setup

// snippet:start reconcile

// Reconcile wants the cluster of a cluster Secret, and removes it once the Secret is gone or no cluster Secret.
func (p *Provider) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	name := multicluster.ClusterName(req.Name)
	secret := &corev1.Secret{}
	if err := p.reader.Get(ctx, req.NamespacedName, secret); err != nil {
		if apierrors.IsNotFound(err) {
			p.engager.Remove(name)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if secret.Labels[SecretTypeLabel] != SecretTypeCluster || !secret.DeletionTimestamp.IsZero() {
		p.engager.Remove(name)
		return reconcile.Result{}, nil
	}
	cfg, err := RESTConfig(secret)
	if err != nil {
		// Not retried: the Secret's next change is. A cluster engaged from an earlier version stays engaged.
		log.FromContext(ctx).Error(err, "Cannot read the cluster Secret", "cluster", name)
		p.engager.Eventf(secret, corev1.EventTypeWarning, ReasonInvalidSecret, clusters.ActionEngage, "%v", err)
		return reconcile.Result{}, nil
	}
	// The engager keeps Object for its Events while the cluster is wanted: a reference is all they need.
	ref := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secret.Namespace, Name: secret.Name, UID: secret.UID}}
	p.engager.Want(name, clusters.Target{Config: cfg, Object: ref, Source: "Secret " + req.String()})
	return reconcile.Result{}, nil
}

// snippet:end reconcile
