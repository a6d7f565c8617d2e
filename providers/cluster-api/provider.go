package capi

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

var (
	_ multicluster.Provider         = &Provider{}
	_ multicluster.ProviderRunnable = &Provider{}
	_ multicluster.ClusterLister    = &Provider{}
)

// Provider is a multicluster.Provider whose clusters are Cluster API workload clusters: one per watched object
// (Options.ObjectToWatch) in the host cluster, named "<namespace>/<name>" of the object. Build it with New, pass it
// to the multi-cluster manager (which starts it), and call SetupWithManager. All methods are safe for concurrent
// use.
type Provider struct {
	opts     Options
	clusters clusters.Clusters[cluster.Cluster]

	// Set by SetupWithManager, before the manager starts the provider.
	setup   sync.Once
	client  client.Client // the host's cached client, for watched objects
	direct  client.Client // a client of the host that reads from the API server, for GetSecret
	kind    string        // the kind of the watched objects, for logs and Events
	engager *clusters.Engager
}

// New returns a provider configured by opts, with the defaults of Options applied. It watches nothing until
// SetupWithManager registers its controller, and engages nothing until the multi-cluster manager starts it.
func New(opts Options) *Provider {
	p := &Provider{opts: opts.complete(), clusters: clusters.New[cluster.Cluster]()}
	p.clusters.WaitCacheTimeout = p.opts.WaitCacheTimeout
	return p
}

// SetupWithManager registers the provider's controller on the host manager (mgr.GetLocalManager()). The
// controller watches Options.ObjectToWatch in every namespace, filtered by Options.Predicates, and the metadata of
// Secrets, so that a rotated "<name>-kubeconfig" Secret brings its object back. With the default ObjectToWatch it
// adds Cluster API's v1beta2 types to the host manager's scheme. It engages nothing: the manager starts the
// provider (Start), which engages the clusters. Call it once, before the manager starts.
//
// Like every controller, the provider's runs on the elected leader only. The host manager needs RBAC to get,
// list and watch the watched kind and Secrets, and to create and patch Events (see config/rbac/role.yaml).
//
// It returns an error if mgr is nil, if it is called twice, or if the controller cannot be built.
func (p *Provider) SetupWithManager(mgr mcmanager.Manager) error {
	if mgr == nil {
		return errors.New("cluster-api provider: the manager is nil")
	}
	err := errors.New("cluster-api provider: SetupWithManager was already called")
	p.setup.Do(func() { err = p.setupWithManager(mgr) })
	return err
}

func (p *Provider) setupWithManager(mgr mcmanager.Manager) error {
	local := mgr.GetLocalManager()
	if _, ok := p.opts.ObjectToWatch.(*clusterv1.Cluster); ok {
		if err := clusterv1.AddToScheme(local.GetScheme()); err != nil {
			return fmt.Errorf("cluster-api provider: adding Cluster API types to the scheme: %w", err)
		}
	}
	gvk, err := apiutil.GVKForObject(p.opts.ObjectToWatch, local.GetScheme())
	if err != nil {
		return fmt.Errorf("cluster-api provider: the kind of ObjectToWatch: %w", err)
	}
	direct, err := client.New(local.GetConfig(), client.Options{
		HTTPClient: local.GetHTTPClient(),
		Scheme:     local.GetScheme(),
		Mapper:     local.GetRESTMapper(),
	})
	if err != nil {
		return fmt.Errorf("cluster-api provider: creating a client of the host cluster: %w", err)
	}
	p.client = local.GetClient()
	p.direct = direct
	p.kind = gvk.Kind
	p.engager = clusters.NewEngager(clusters.EngagerOptions{
		Clusters:       &p.clusters,
		ClusterOptions: p.opts.ClusterOptions,
		NewCluster:     p.newCluster,
		EventRecorder:  local.GetEventRecorder(p.opts.ControllerName),
		Logger:         mgr.GetLogger().WithName(p.opts.ControllerName),
	})

	err = ctrl.NewControllerManagedBy(local).
		Named(p.opts.ControllerName).
		For(p.opts.ObjectToWatch.DeepCopyObject().(client.Object), builder.WithPredicates(p.opts.Predicates...)).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(objectOfKubeconfigSecret), builder.OnlyMetadata).
		Complete(p)
	if err != nil {
		return fmt.Errorf("cluster-api provider: building the controller: %w", err)
	}
	return nil
}

// objectOfKubeconfigSecret maps a kubeconfig Secret to the object of the same namespace it is named after, so that
// a rotated kubeconfig is picked up.
func objectOfKubeconfigSecret(_ context.Context, secret client.Object) []reconcile.Request {
	name, ok := cutSuffix(secret.GetName(), KubeconfigSecretSuffix)
	if !ok || name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: secret.GetNamespace(), Name: name}}}
}

func cutSuffix(s, suffix string) (string, bool) {
	if len(s) < len(suffix) || s[len(s)-len(suffix):] != suffix {
		return s, false
	}
	return s[:len(s)-len(suffix)], true
}

// Start engages the clusters of the watched objects with aware until ctx ends; then it stops them and returns nil.
// The multi-cluster manager calls it (the provider is a multicluster.ProviderRunnable). Objects reconciled before
// Start are engaged once it runs. It returns an error if SetupWithManager has not been called, or if the provider
// is already started.
func (p *Provider) Start(ctx context.Context, aware multicluster.Aware) error {
	if p.engager == nil {
		return errors.New("cluster-api provider: SetupWithManager must be called before the provider starts")
	}
	if err := p.engager.Start(ctx, aware); err != nil {
		return fmt.Errorf("cluster-api provider: %w", err)
	}
	return nil
}

// Get returns the cluster of the watched object "<namespace>/<name>", from the moment the provider starts engaging
// it (so that no event of a new cluster meets "not found") until it is disengaged. It returns an error matching
// multicluster.ErrClusterNotFound for any other name.
func (p *Provider) Get(ctx context.Context, clusterName multicluster.ClusterName) (cluster.Cluster, error) {
	return p.clusters.Get(ctx, clusterName)
}

// IndexField registers a field index on every cluster, current and future. Errors name the clusters.
func (p *Provider) IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
	return p.clusters.IndexField(ctx, obj, field, extractValue)
}

// ClusterNames returns the names of the engaged clusters, sorted: a cluster is listed from when its cache has
// synced and it is being engaged until it is disengaged.
func (p *Provider) ClusterNames() []multicluster.ClusterName {
	if p.engager == nil {
		return nil
	}
	return p.engager.ClusterNames()
}

// ListClusters is ClusterNames, under the name the provider's API has always had for it.
func (p *Provider) ListClusters() []multicluster.ClusterName {
	return p.ClusterNames()
}
