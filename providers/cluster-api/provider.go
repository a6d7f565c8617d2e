package capi

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

var (
	_ multicluster.Provider         = &Provider{}
	_ multicluster.ProviderRunnable = &Provider{}
)

// Provider is a multicluster.Provider whose clusters are Cluster API workload clusters. Create it with New.
type Provider struct {
	opts     Options
	client   client.Client // the host's cached client, for Cluster objects
	reader   client.Reader // the host's API reader, for kubeconfig Secrets (not cached)
	recorder record.EventRecorder
	clusters clusters.Clusters[cluster.Cluster]

	// retry carries Clusters whose engagement ended (failed or done) back to the controller's queue.
	retry chan event.TypedGenericEvent[*clusterv1.Cluster]

	// mu guards ctx, aware and members.
	mu      sync.Mutex
	ctx     context.Context // the context of Start: the clusters' lifetime
	aware   multicluster.Aware
	members map[string]*member
	workers sync.WaitGroup
}

// member is what the provider engaged, or is engaging, for one Cluster.
type member struct {
	// cfg is the rest.Config the cluster is engaged with; nil until it is engaged.
	cfg *rest.Config
	// busy is true while a goroutine engages the cluster.
	busy bool
	// failures counts the consecutive failed engagements, for backoff.
	failures int
}

// New returns a provider of the Cluster API workload clusters of the management cluster that localMgr (the
// multi-cluster manager's host manager, mcmanager.Manager.GetLocalManager) is for, and registers its controller
// with localMgr. localMgr's scheme gets the Cluster API core types added. Clusters are engaged once the provider is
// started with Start, which the multi-cluster manager does.
func New(localMgr manager.Manager, opts Options) (*Provider, error) {
	if localMgr == nil {
		return nil, errors.New("cluster-api provider: the host manager is nil")
	}
	if err := clusterv1.AddToScheme(localMgr.GetScheme()); err != nil {
		return nil, fmt.Errorf("cluster-api provider: adding Cluster API types to the scheme: %w", err)
	}
	p := &Provider{
		opts:     opts.complete(),
		client:   localMgr.GetClient(),
		reader:   localMgr.GetAPIReader(),
		recorder: localMgr.GetEventRecorderFor("multicluster-capi-provider"),
		clusters: clusters.New[cluster.Cluster](),
		retry:    make(chan event.TypedGenericEvent[*clusterv1.Cluster]),
		members:  map[string]*member{},
	}
	p.clusters.WaitCacheTimeout = p.opts.WaitCacheTimeout
	if p.opts.GetSecret == nil {
		p.opts.GetSecret = p.kubeconfigFromSecret
	}

	err := builder.ControllerManagedBy(localMgr).
		Named(p.opts.ControllerName).
		For(&clusterv1.Cluster{}).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(clusterOfKubeconfigSecret), builder.OnlyMetadata).
		WatchesRawSource(source.Channel(p.retry, &handler.TypedEnqueueRequestForObject[*clusterv1.Cluster]{})).
		Complete(p)
	if err != nil {
		return nil, fmt.Errorf("cluster-api provider: registering the controller: %w", err)
	}
	return p, nil
}

// clusterOfKubeconfigSecret maps a kubeconfig Secret to its Cluster, so that a rotated kubeconfig is picked up.
func clusterOfKubeconfigSecret(_ context.Context, obj client.Object) []reconcile.Request {
	name, ok := cutSuffix(obj.GetName(), KubeconfigSecretSuffix)
	if !ok || name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: obj.GetNamespace(), Name: name}}}
}

func cutSuffix(s, suffix string) (string, bool) {
	if len(s) < len(suffix) || s[len(s)-len(suffix):] != suffix {
		return s, false
	}
	return s[:len(s)-len(suffix)], true
}

// Start makes the provider engage clusters with aware until ctx is done: Clusters reconciled before Start are
// engaged when it is called. When ctx ends, every cluster stops; Start waits for its engaging goroutines and
// returns nil. It returns an error if the provider is already started.
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

// Get returns the cluster "<namespace>/<name>" of a Cluster object, or an error matching
// multicluster.ErrClusterNotFound. A cluster is retrievable from before it is engaged until it is disengaged.
func (p *Provider) Get(ctx context.Context, clusterName string) (cluster.Cluster, error) {
	return p.clusters.Get(ctx, clusterName)
}

// IndexField registers a field index on every cluster, current and future.
func (p *Provider) IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
	return p.clusters.IndexField(ctx, obj, field, extractValue)
}

// ClusterNames returns the names of the clusters the provider holds, sorted.
func (p *Provider) ClusterNames() []string {
	return p.clusters.ClusterNames()
}

// kubeconfigFromSecret is the default GetSecret: it reads the Cluster's kubeconfig Secret from the API server.
func (p *Provider) kubeconfigFromSecret(ctx context.Context, ccl *clusterv1.Cluster) (*rest.Config, error) {
	secret := &corev1.Secret{}
	key := client.ObjectKey{Namespace: ccl.Namespace, Name: ccl.Name + KubeconfigSecretSuffix}
	if err := p.reader.Get(ctx, key, secret); err != nil {
		return nil, fmt.Errorf("reading kubeconfig Secret %s: %w", key, err)
	}
	data, ok := secret.Data[KubeconfigSecretKey]
	if !ok || len(data) == 0 {
		return nil, fmt.Errorf("kubeconfig Secret %s has no key %q", key, KubeconfigSecretKey)
	}
	return parseKubeconfig(data, key.String())
}

// parseKubeconfig builds a rest.Config without echoing the kubeconfig in errors: it carries credentials.
func parseKubeconfig(data []byte, from string) (*rest.Config, error) {
	cc, err := clientcmd.Load(data)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig Secret %s: cannot parse its kubeconfig", from)
	}
	cfg, err := clientcmd.NewDefaultClientConfig(*cc, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig Secret %s: invalid kubeconfig: %w", from, err)
	}
	return cfg, nil
}
