package capi

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

var (
	_ multicluster.Provider         = &Provider{}
	_ multicluster.ProviderRunnable = &Provider{}
)

// Provider is a multicluster.Provider whose clusters are Cluster API workload clusters: one per watched object
// (Options.ObjectToWatch) in the host cluster, named "<namespace>/<name>" of the object. Build it with New, pass it
// to the multi-cluster manager, and call SetupWithManager. All methods are safe for concurrent use.
type Provider struct {
	opts     Options
	clusters clusters.Clusters[cluster.Cluster]

	// retry carries objects whose engagement ended (failed or done) back to the controller's queue.
	retry chan event.GenericEvent

	// Set by SetupWithManager.
	setup    sync.Once
	client   client.Client // the host's cached client, for watched objects
	direct   client.Client // a client of the host that reads from the API server, for GetSecret
	recorder recorder.EventRecorder

	// mu guards ctx, aware and members.
	mu      sync.Mutex
	ctx     context.Context // the context of Start: the clusters' lifetime
	aware   multicluster.Aware
	members map[multicluster.ClusterName]*member
	workers sync.WaitGroup
}

// member is what the provider engaged, or is engaging, for one watched object.
type member struct {
	// cfg is the rest.Config the cluster is engaged with; nil until it is engaged.
	cfg *rest.Config
	// busy is true while a goroutine engages the cluster.
	busy bool
	// failures counts the consecutive failed engagements, for backoff.
	failures int
}

// New returns a provider configured by opts, with the defaults of Options applied. It watches nothing until
// SetupWithManager registers its controller, and engages nothing until the multi-cluster manager starts it.
func New(opts Options) *Provider {
	p := &Provider{
		opts:     opts.withDefaults(),
		clusters: clusters.New[cluster.Cluster](),
		retry:    make(chan event.GenericEvent),
		members:  map[multicluster.ClusterName]*member{},
	}
	p.clusters.WaitCacheTimeout = p.opts.WaitCacheTimeout
	return p
}

// SetupWithManager registers the provider's controller on the host manager (mgr.GetLocalManager()). The
// controller watches Options.ObjectToWatch in every namespace, filtered by Options.Predicates, and the metadata of
// Secrets, so that a rotated "<name>-kubeconfig" Secret brings its object back. With the default ObjectToWatch it
// adds Cluster API's v1beta2 types to the host manager's scheme. Clusters are engaged with the aware the manager
// starts the provider with (the manager itself), from when it starts.
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
	p.recorder = local.GetEventRecorder(p.opts.ControllerName)

	err = ctrl.NewControllerManagedBy(local).
		Named(p.opts.ControllerName).
		For(p.opts.ObjectToWatch.DeepCopyObject().(client.Object), builder.WithPredicates(p.opts.Predicates...)).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(objectOfKubeconfigSecret), builder.OnlyMetadata).
		WatchesRawSource(source.Channel(p.retry, &handler.EnqueueRequestForObject{})).
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

// Start makes the provider engage clusters with aware until ctx is done; the multi-cluster manager calls it, once.
// Objects reconciled before Start are engaged once it is called. When ctx ends, every cluster stops; Start waits
// for its engaging goroutines and returns nil. It returns an error if the provider is already started.
func (p *Provider) Start(ctx context.Context, aware multicluster.Aware) error {
	p.mu.Lock()
	if p.ctx != nil {
		p.mu.Unlock()
		return errors.New("cluster-api provider: already started")
	}
	p.ctx, p.aware = ctx, aware
	p.mu.Unlock()

	<-ctx.Done()
	p.workers.Wait()
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

// ListClusters returns the names of the clusters the provider holds (engaged, or being engaged for the first
// time), sorted.
func (p *Provider) ListClusters() []multicluster.ClusterName {
	return p.clusters.ClusterNames()
}
