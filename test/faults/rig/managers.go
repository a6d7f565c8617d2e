// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package rig

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"k8s.io/utils/ptr"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/examples/argocd"
	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcclusters "sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	clusterinventoryapi "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/access"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/kubeconfigstrategy"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/providers/file"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
)

// Scheme knows the built-in types and the cluster-inventory-api types.
var Scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(clusterinventoryv1alpha1.AddToScheme(s))
	return s
}()

// Provider kinds, as Manager.Provider names them.
const (
	ProviderFile    = "file"
	ProviderSecret  = "secret"
	ProviderProfile = "profile"
	// ProviderAddConfig is the clusters provider, with a cluster per member added through AddConfig.
	ProviderAddConfig = "addconfig"
	// ProviderArgoCD is examples/argocd, a provider written as outside this repository, with an Argo CD cluster
	// Secret per member in ArgoCDNamespace of the host.
	ProviderArgoCD = "argocd"
)

// ArgoCDNamespace is the namespace of the host with the Argo CD cluster Secrets.
const ArgoCDNamespace = "argocd"

// PluginProviderName is the access-provider type of the ClusterProfiles, mapped to the rig's credential plugin.
const PluginProviderName = "faults-plugin"

// Manager is a running multi-cluster manager of the host with one provider and a controller per kind that records
// what it reads into Observer.
type Manager struct {
	// Provider is ProviderFile, ProviderSecret, ProviderProfile, ProviderAddConfig or ProviderArgoCD.
	Provider string
	Mgr      mcmanager.Manager
	Observer *Observer
	// One of these is set, after Provider.
	File    *file.Provider
	Secret  *kubeconfig.Provider
	Profile *clusterinventoryapi.Provider
	Config  *clusters.Provider
	ArgoCD  *argocd.Provider

	rig    *Rig
	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// ClusterName is the name of a member's cluster in this manager: for the file provider the context of the member's
// file, for Secrets the Secret's name (the member's), for ClusterProfiles "<HostNamespace>/<member>", for clusters
// added with AddConfig "config-<member>".
func (m *Manager) ClusterName(member string) multicluster.ClusterName {
	switch m.Provider {
	case ProviderFile:
		return m.rig.FileClusterName(member)
	case ProviderProfile:
		return multicluster.ClusterName(HostNamespace + "/" + member)
	case ProviderAddConfig:
		return multicluster.ClusterName("config-" + member)
	case ProviderArgoCD:
		return multicluster.ClusterName("argocd-" + member)
	default:
		return multicluster.ClusterName(member)
	}
}

// Target is the manager's view of a member, for a Writer.
func (m *Manager) Target(member string) Target {
	return Target{Observer: m.Observer, Cluster: m.ClusterName(member)}
}

// Engaged reports whether the manager's provider has a cluster of the member.
func (m *Manager) Engaged(ctx context.Context, member string) bool {
	_, err := m.Mgr.GetCluster(ctx, m.ClusterName(member))
	return err == nil
}

// Stop stops the manager and waits for it; it returns the error its Start returned.
func (m *Manager) Stop() error {
	m.cancel()
	<-m.done
	return m.err
}

// Running reports whether the manager still runs (its Start has not returned).
func (m *Manager) Running() bool {
	select {
	case <-m.done:
		return false
	default:
		return true
	}
}

// ManagerOptions adjusts the managers the rig builds.
type ManagerOptions struct {
	// WaitCacheTimeout bounds each cluster's cache sync. Zero keeps the provider's default.
	WaitCacheTimeout time.Duration
	// ClusterOptions are appended to the rig's (a cache limited to Namespace).
	ClusterOptions []cluster.Option
	// IndexConfigMaps registers a field index on ConfigMaps ("data.v") through the manager, as most controllers
	// register some: a new cluster then has an informer to sync before it is engaged, which a cluster that cannot
	// be reached never does, so the provider reports it failing to engage.
	IndexConfigMaps bool
}

func (o ManagerOptions) clusterOptions() []cluster.Option {
	inNamespace := func(co *cluster.Options) {
		co.Cache.DefaultNamespaces = map[string]cache.Config{Namespace: {}}
	}
	return append([]cluster.Option{inNamespace}, o.ClusterOptions...)
}

// StartFileManager starts a manager whose clusters are the contexts of the files of KubeconfigDir.
func (r *Rig) StartFileManager(ctx context.Context, opts ManagerOptions) (*Manager, error) {
	p, err := file.New(file.Options{KubeconfigDirs: []string{r.KubeconfigDir}, ClusterOptions: opts.clusterOptions()})
	if err != nil {
		return nil, err
	}
	if opts.WaitCacheTimeout > 0 {
		p.WaitCacheTimeout = opts.WaitCacheTimeout
	}
	m := &Manager{Provider: ProviderFile, File: p}
	return m, r.startManager(ctx, m, p, clientgoscheme.Scheme, opts, nil)
}

// StartSecretManager starts a manager whose clusters are the labelled Secrets of HostNamespace. Their kubeconfigs may
// run the rig's credential plugin, and nothing else the default KubeconfigPolicy refuses.
func (r *Rig) StartSecretManager(ctx context.Context, opts ManagerOptions) (*Manager, error) {
	p := kubeconfig.New(kubeconfig.Options{
		Namespace:        HostNamespace,
		ClusterOptions:   opts.clusterOptions(),
		WaitCacheTimeout: opts.WaitCacheTimeout,
		KubeconfigPolicy: mcclusters.KubeconfigPolicy{ExecPlugins: &clientcmdapi.PluginPolicy{
			PolicyType: clientcmdapi.PluginPolicyAllowlist,
			Allowlist:  []clientcmdapi.AllowlistEntry{{Command: r.Plugin}},
		}},
	})
	m := &Manager{Provider: ProviderSecret, Secret: p}
	return m, r.startManager(ctx, m, p, clientgoscheme.Scheme, opts, func(mgr mcmanager.Manager) error {
		return p.SetupWithManager(ctx, mgr)
	})
}

// StartConfigManager starts a manager of the clusters provider with a cluster per member, added with AddConfig
// from the member's admin config (client certificate) before the manager starts, as the README shows.
func (r *Rig) StartConfigManager(ctx context.Context, opts ManagerOptions, members ...string) (*Manager, error) {
	p := clusters.New()
	if opts.WaitCacheTimeout > 0 {
		p.WaitCacheTimeout = opts.WaitCacheTimeout
	}
	m := &Manager{Provider: ProviderAddConfig, Config: p}
	for _, member := range members {
		cfg, err := r.Fleet.Config(member)
		if err != nil {
			return nil, err
		}
		if err := p.AddConfig(ctx, m.ClusterName(member), cfg, opts.clusterOptions()...); err != nil {
			return nil, err
		}
	}
	return m, r.startManager(ctx, m, p, clientgoscheme.Scheme, opts, nil)
}

// StartArgoCDManager starts a manager of the out-of-tree example provider (examples/argocd) with an Argo CD cluster
// Secret per member in ArgoCDNamespace of the host (the admin token and the member's CA), written before the
// manager starts.
func (r *Rig) StartArgoCDManager(ctx context.Context, opts ManagerOptions, members ...string) (*Manager, error) {
	if err := r.createNamespace(ctx, mcenvtest.HostName, ArgoCDNamespace); err != nil {
		return nil, err
	}
	host, err := r.Client(mcenvtest.HostName)
	if err != nil {
		return nil, err
	}
	m := &Manager{Provider: ProviderArgoCD}
	for _, member := range members {
		cfg, err := r.Fleet.Config(member)
		if err != nil {
			return nil, err
		}
		secret, err := argocd.ClusterSecret(ArgoCDNamespace, string(m.ClusterName(member)),
			&rest.Config{Host: cfg.Host, BearerToken: r.Tokens.Admin, TLSClientConfig: rest.TLSClientConfig{CAData: cfg.CAData}})
		if err != nil {
			return nil, err
		}
		if err := host.Create(Quiet(ctx), secret); client.IgnoreAlreadyExists(err) != nil {
			return nil, err
		}
	}
	m.ArgoCD = argocd.New(argocd.Options{Namespace: ArgoCDNamespace, ControllerName: "faults-argocd", ClusterOptions: opts.clusterOptions()})
	return m, r.startManager(ctx, m, m.ArgoCD, clientgoscheme.Scheme, opts, m.ArgoCD.SetupWithManager)
}

// StartProfileManager starts a manager whose clusters are the ClusterProfiles of the host, reached through the
// access provider PluginProviderName: the rig's plugin printing Tokens.Plugin.
func (r *Rig) StartProfileManager(ctx context.Context, opts ManagerOptions) (*Manager, error) {
	accessConfig, err := access.New([]access.Provider{{
		Name: PluginProviderName,
		ExecConfig: &clientcmdapi.ExecConfig{
			Command:    r.Plugin,
			APIVersion: "client.authentication.k8s.io/v1",
			Env:        []clientcmdapi.ExecEnvVar{{Name: "PLUGIN_TOKEN", Value: r.Tokens.Plugin}},
		},
	}})
	if err != nil {
		return nil, err
	}
	p, err := clusterinventoryapi.New(clusterinventoryapi.Options{
		ClusterOptions:   opts.clusterOptions(),
		WaitCacheTimeout: opts.WaitCacheTimeout,
		KubeconfigStrategyOption: kubeconfigstrategy.Option{
			AccessProvider: &kubeconfigstrategy.AccessProviderOption{Provider: accessConfig},
		},
	})
	if err != nil {
		return nil, err
	}
	m := &Manager{Provider: ProviderProfile, Profile: p}
	return m, r.startManager(ctx, m, p, Scheme, opts, func(mgr mcmanager.Manager) error { return p.SetupWithManager(mgr) })
}

// startManager builds the manager of m with provider, sets it up, adds the recording controllers and starts it.
func (r *Rig) startManager(ctx context.Context, m *Manager, provider multicluster.Provider, scheme *runtime.Scheme,
	opts ManagerOptions, setup func(mcmanager.Manager) error) error {
	host, err := r.Fleet.Config(mcenvtest.HostName)
	if err != nil {
		return err
	}
	mgr, err := mcmanager.New(host, provider, mcmanager.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return err
	}
	m.Mgr, m.rig, m.Observer = mgr, r, NewObserver()
	if setup != nil {
		if err := setup(mgr); err != nil {
			return err
		}
	}
	if opts.IndexConfigMaps {
		err := mgr.GetFieldIndexer().IndexField(ctx, &corev1.ConfigMap{}, "data.v", func(o client.Object) []string {
			return []string{o.(*corev1.ConfigMap).Data["v"]}
		})
		if err != nil {
			return err
		}
	}
	for _, kind := range Kinds {
		err := mcbuilder.ControllerManagedBy(mgr).
			Named(fmt.Sprintf("faults-%s-%s", m.Provider, kind)).
			For(newObject(kind, "", 0)).
			Complete(r.recorder(m, kind))
		if err != nil {
			return err
		}
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m.cancel, m.done = cancel, make(chan struct{})
	go func() {
		defer close(m.done)
		m.err = mgr.Start(runCtx)
	}()
	return nil
}

// recorder is the reconciler of one kind: it reads the object from its cluster's cache and records the value (or
// that it is gone) with the identity of the cluster it read it from.
func (r *Rig) recorder(m *Manager, kind string) mcreconcile.Func {
	return func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
		cl, err := m.Mgr.GetCluster(ctx, req.ClusterName)
		if err != nil {
			if errors.Is(err, multicluster.ErrClusterNotFound) {
				return reconcile.Result{}, nil
			}
			return reconcile.Result{}, err
		}
		obj := newObject(kind, "", 0)
		err = cl.GetClient().Get(ctx, req.NamespacedName, obj)
		seen := Observation{At: time.Now(), Identity: r.Identity(cl.GetConfig())}
		switch {
		case apierrors.IsNotFound(err):
			seen.Deleted = true
		case err != nil:
			return reconcile.Result{}, err
		default:
			seen.Value = valueOf(obj)
		}
		m.Observer.Record(ObjectKey{Cluster: req.ClusterName, Kind: kind, Name: req.Name}, seen)
		return reconcile.Result{}, nil
	}
}

// valueOf reads data "v" of an object the writers write.
func valueOf(obj client.Object) int64 {
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		return parseValue(o.Data["v"])
	case *corev1.Secret:
		return parseValue(string(o.Data["v"]))
	}
	return 0
}

// WriteSecret creates or replaces the kubeconfig Secret of the cluster name in HostNamespace with data under key
// (the provider's default key if empty); nil data leaves the key out.
func (r *Rig) WriteSecret(ctx context.Context, name, key string, data []byte) error {
	c, err := r.Client(mcenvtest.HostName)
	if err != nil {
		return err
	}
	if key == "" {
		key = kubeconfig.DefaultKubeconfigSecretKey
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
		Namespace: HostNamespace, Name: name,
		Labels: map[string]string{kubeconfig.DefaultKubeconfigSecretLabel: "true"},
	}}
	if data != nil {
		secret.Data = map[string][]byte{key: data}
	}
	ctx = Quiet(ctx)
	err = c.Create(ctx, secret)
	if apierrors.IsAlreadyExists(err) {
		err = c.Update(ctx, secret)
	}
	return err
}

// DeleteSecret deletes the kubeconfig Secret of a cluster, if it exists.
func (r *Rig) DeleteSecret(ctx context.Context, name string) error {
	c, err := r.Client(mcenvtest.HostName)
	if err != nil {
		return err
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: HostNamespace, Name: name}}
	return client.IgnoreNotFound(c.Delete(Quiet(ctx), secret))
}

// WriteProfile creates or updates the ClusterProfile HostNamespace/name, ready, offering the access provider types
// of entries, each reaching the API server of the control plane it maps to (an empty control plane offers an entry
// without a cluster).
func (r *Rig) WriteProfile(ctx context.Context, name string, entries map[string]string) error {
	c, err := r.Client(mcenvtest.HostName)
	if err != nil {
		return err
	}
	ctx = Quiet(ctx)
	clp := &clusterinventoryv1alpha1.ClusterProfile{}
	err = c.Get(ctx, client.ObjectKey{Namespace: HostNamespace, Name: name}, clp)
	if apierrors.IsNotFound(err) {
		clp = &clusterinventoryv1alpha1.ClusterProfile{
			ObjectMeta: metav1.ObjectMeta{Namespace: HostNamespace, Name: name},
			Spec:       clusterinventoryv1alpha1.ClusterProfileSpec{ClusterManager: clusterinventoryv1alpha1.ClusterManager{Name: "faults"}},
		}
		err = c.Create(ctx, clp)
	}
	if err != nil {
		return err
	}
	clp.Status.AccessProviders = nil
	for typ, controlPlane := range entries {
		entry := clusterinventoryv1alpha1.CredentialProvider{Name: typ}
		if controlPlane != "" {
			cfg, err := r.Fleet.Config(controlPlane)
			if err != nil {
				return err
			}
			entry.Cluster = clientcmdv1.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
		}
		clp.Status.AccessProviders = append(clp.Status.AccessProviders, entry)
	}
	for _, cond := range []string{clusterinventoryv1alpha1.ClusterConditionControlPlaneHealthy, clusterinventoryapi.ClusterConditionJoined} {
		meta.SetStatusCondition(&clp.Status.Conditions, metav1.Condition{Type: cond, Status: metav1.ConditionTrue, Reason: "Faults"})
	}
	return c.Status().Update(ctx, clp)
}

// DeleteProfile deletes the ClusterProfile HostNamespace/name, if it exists.
func (r *Rig) DeleteProfile(ctx context.Context, name string) error {
	c, err := r.Client(mcenvtest.HostName)
	if err != nil {
		return err
	}
	clp := &clusterinventoryv1alpha1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Namespace: HostNamespace, Name: name}}
	return client.IgnoreNotFound(c.Delete(Quiet(ctx), clp))
}
