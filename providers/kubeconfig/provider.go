// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// DefaultControllerName is the default of Options.ControllerName: the name of the controller SetupWithManager
// registers on the host manager, and the reporting controller of the Events the provider records on Secrets.
const DefaultControllerName = "kubeconfig-provider"

// ControllerName is DefaultControllerName.
//
// Deprecated: use DefaultControllerName, or Options.ControllerName to choose another name.
const ControllerName = DefaultControllerName

// Provider is a provider of the clusters whose kubeconfigs are stored in labelled Secrets of one namespace of the
// host cluster. Build it with New, pass it to the manager (which starts it), and call SetupWithManager. All methods
// are safe for concurrent use.
type Provider struct {
	// EngagedClusters makes the provider a multicluster.Provider, ProviderRunnable and ClusterLister: Start, Get,
	// IndexField and ClusterNames are its engager's.
	clusters.EngagedClusters
	opts Options
	// engager engages the clusters of the Secrets; the controller tells it what each Secret describes.
	engager *clusters.Engager

	// Set by SetupWithManager, before the manager starts the provider.
	scheme  *runtime.Scheme
	secrets cache.Cache
	log     logr.Logger
}

// New returns a provider configured by opts, with the defaults of Options applied. It watches nothing until
// SetupWithManager is called.
func New(opts Options) *Provider {
	p := &Provider{opts: opts.complete()}
	p.log = logf.Log.WithName(p.opts.ControllerName)
	p.engager = p.newEngager()
	p.EngagedClusters = p.engager.Engaged()
	return p
}

// SetupWithManager registers the provider's controller on the host manager (mgr.GetLocalManager()) and the
// provider's own cache, which holds only the Secrets of Options.Namespace that carry Options.KubeconfigSecretLabel
// (with managed fields stripped), so the manager's cache and its memory are left alone. That cache never logs the
// bodies of its list and watch calls, whatever the verbosity. It engages nothing: the manager starts the provider
// (Start), which engages the clusters under the names of their Secrets, for as long as the manager runs or until
// their Secret goes. ctx only bounds the setup. Call it once, before the manager starts.
//
// Like every controller, the provider's watch runs on the elected leader only. The manager needs RBAC to list and
// watch Secrets and to create and patch Events (events.k8s.io) in Options.Namespace (config/rbac/role.yaml).
//
// It returns an error if called twice, or if Options.KubeconfigSecretLabel is not a valid label key.
func (p *Provider) SetupWithManager(_ context.Context, mgr mcmanager.Manager) error {
	if err := p.engager.SetupWithManager(mgr, p.opts.ControllerName); err != nil {
		return fmt.Errorf("kubeconfig provider: %w", err)
	}
	if errs := validation.IsQualifiedName(p.opts.KubeconfigSecretLabel); len(errs) > 0 {
		return fmt.Errorf("kubeconfig provider: invalid KubeconfigSecretLabel %q: %v", p.opts.KubeconfigSecretLabel, errs)
	}
	labelled, err := labels.NewRequirement(p.opts.KubeconfigSecretLabel, selection.Exists, nil)
	if err != nil {
		return fmt.Errorf("kubeconfig provider: invalid KubeconfigSecretLabel %q: %w", p.opts.KubeconfigSecretLabel, err)
	}

	local := mgr.GetLocalManager()
	secrets, err := cache.New(local.GetConfig(), cache.Options{
		HTTPClient:                  local.GetHTTPClient(),
		Scheme:                      local.GetScheme(),
		Mapper:                      local.GetRESTMapper(),
		DefaultNamespaces:           map[string]cache.Config{p.opts.Namespace: {}},
		ByObject:                    map[client.Object]cache.ByObject{&corev1.Secret{}: {Label: labels.NewSelector().Add(*labelled)}},
		DefaultTransform:            cache.TransformStripManagedFields(),
		ReaderFailOnMissingInformer: true,
		NewInformer:                 newQuietInformer,
	})
	if err != nil {
		return fmt.Errorf("kubeconfig provider: creating the cache of Secrets in namespace %q: %w", p.opts.Namespace, err)
	}

	p.scheme = local.GetScheme()
	p.secrets = secrets
	p.log = mgr.GetLogger().WithName(p.opts.ControllerName)

	if err := local.Add(secretCache{secrets}); err != nil {
		return fmt.Errorf("kubeconfig provider: adding the cache of Secrets to the manager: %w", err)
	}
	err = ctrl.NewControllerManagedBy(local).
		Named(p.opts.ControllerName).
		WatchesRawSource(source.Kind(secrets, &corev1.Secret{}, &handler.TypedEnqueueRequestForObject[*corev1.Secret]{})).
		Complete(p)
	if err != nil {
		return fmt.Errorf("kubeconfig provider: building the controller of Secrets: %w", err)
	}
	p.log.Info("Watching Secrets for kubeconfigs", "namespace", p.opts.Namespace,
		"label", p.opts.KubeconfigSecretLabel, "key", p.opts.KubeconfigSecretKey)
	return nil
}

// secretCache runs the provider's cache of Secrets as a runnable of the host manager, on the elected leader only,
// like the provider's controller.
type secretCache struct {
	cache.Cache
}

// NeedLeaderElection reports true: the Secrets are read on the leader only, like the controller that reads them.
func (secretCache) NeedLeaderElection() bool {
	return true
}

// ListClusters is ClusterNames, under the name the kubeconfig provider has always had for it.
func (p *Provider) ListClusters() []multicluster.ClusterName {
	return p.ClusterNames()
}
