package kubeconfig

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

var _ multicluster.Provider = &Provider{}

// DefaultControllerName is the default of Options.ControllerName: the name of the controller SetupWithManager
// registers on the host manager, and the reporting controller of the Events the provider records on Secrets.
const DefaultControllerName = "kubeconfig-provider"

// ControllerName is DefaultControllerName.
//
// Deprecated: use DefaultControllerName, or Options.ControllerName to choose another name.
const ControllerName = DefaultControllerName

// Provider is a provider of the clusters whose kubeconfigs are stored in labelled Secrets of one namespace of the
// host cluster. Build it with New, pass it to the manager, and call SetupWithManager. All methods are safe for
// concurrent use.
type Provider struct {
	opts     Options
	clusters clusters.Clusters[cluster.Cluster]

	// Set by SetupWithManager.
	setup    sync.Once
	aware    multicluster.Aware
	scheme   *runtime.Scheme
	secrets  cache.Cache
	recorder recorder.EventRecorder
	log      logr.Logger

	// mu guards the fields below. It is held while deciding what to do with a Secret's cluster and while removing
	// one, never while a cluster starts or syncs.
	mu sync.Mutex
	// runCtx is the host manager's run context, the parent of every cluster's context; set when the provider's
	// watch starts.
	runCtx context.Context
	// states holds what the provider knows of each Secret that describes, or described, a cluster.
	states map[multicluster.ClusterName]*secretState
	// workers counts the goroutines engaging clusters; the watch waits for them when it stops.
	workers sync.WaitGroup
}

// New returns a provider configured by opts, with the defaults of Options applied. It watches nothing until
// SetupWithManager is called.
func New(opts Options) *Provider {
	opts = opts.osDefaults()
	p := &Provider{
		opts:     opts,
		clusters: clusters.New[cluster.Cluster](),
		log:      logf.Log.WithName(opts.ControllerName),
		states:   map[multicluster.ClusterName]*secretState{},
	}
	p.clusters.WaitCacheTimeout = p.opts.WaitCacheTimeout
	p.clusters.ErrorHandler = func(err error, msg string, keysAndValues ...any) {
		p.log.Error(err, msg, keysAndValues...)
	}
	return p
}

// SetupWithManager registers the provider's controller on the host manager (mgr.GetLocalManager()) and the
// provider's own cache, which holds only the Secrets of Options.Namespace that carry Options.KubeconfigSecretLabel
// (with managed fields stripped), so the manager's cache and its memory are left alone. That cache never logs the
// bodies of its list and watch calls, whatever the verbosity. Clusters are engaged with
// mgr under the name of their Secret, and live as long as the manager runs or until their Secret goes; ctx only
// bounds the setup.
//
// Like every controller, the provider's watch runs on the elected leader only. The manager needs RBAC to get, list
// and watch Secrets and to create and patch Events (events.k8s.io) in Options.Namespace.
//
// It returns an error if called twice, or if Options.KubeconfigSecretLabel is not a valid label key.
func (p *Provider) SetupWithManager(ctx context.Context, mgr mcmanager.Manager) error {
	if mgr == nil {
		return errors.New("kubeconfig provider: the manager is nil")
	}
	err := errors.New("kubeconfig provider: SetupWithManager was already called")
	p.setup.Do(func() { err = p.setupWithManager(ctx, mgr) })
	return err
}

func (p *Provider) setupWithManager(_ context.Context, mgr mcmanager.Manager) error {
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

	p.aware = mgr
	p.scheme = local.GetScheme()
	p.secrets = secrets
	p.recorder = local.GetEventRecorder(p.opts.ControllerName)
	p.log = mgr.GetLogger().WithName(p.opts.ControllerName)

	if err := local.Add(&secretWatch{p: p}); err != nil {
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

// secretWatch runs the provider's cache of Secrets as a runnable of the host manager, and gives the provider the
// manager's run context. When the manager stops, it waits for the provider's background work to end.
type secretWatch struct {
	p *Provider
}

// Start runs the cache of Secrets until ctx ends.
func (w *secretWatch) Start(ctx context.Context) error {
	w.p.mu.Lock()
	if w.p.runCtx != nil {
		w.p.mu.Unlock()
		return errors.New("kubeconfig provider: already started")
	}
	w.p.runCtx = ctx
	w.p.mu.Unlock()

	if err := w.p.secrets.Start(ctx); err != nil {
		return fmt.Errorf("kubeconfig provider: cache of Secrets in namespace %q: %w", w.p.opts.Namespace, err)
	}
	<-ctx.Done()
	// No worker starts once ctx is done (see want), so Wait cannot race with Add.
	w.p.workers.Wait()
	return nil
}

// NeedLeaderElection reports true: the provider engages clusters on the leader only, like its controller.
func (w *secretWatch) NeedLeaderElection() bool {
	return true
}

// Get returns the cluster of the Secret named clusterName, from the moment the provider starts engaging it (so that
// no event of a new cluster meets "not found") until its Secret is deleted, loses the label or stops holding a
// valid kubeconfig. It returns an error matching multicluster.ErrClusterNotFound for any other name.
func (p *Provider) Get(ctx context.Context, clusterName multicluster.ClusterName) (cluster.Cluster, error) {
	return p.clusters.Get(ctx, clusterName)
}

// IndexField registers a field index on every cluster, current and future. On a running cluster it waits for that
// cluster's informer of obj's type to sync, bounded by Options.WaitCacheTimeout. Errors name the clusters.
func (p *Provider) IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
	return p.clusters.IndexField(ctx, obj, field, extractValue)
}

// ListClusters returns the names of the engaged clusters, sorted. A cluster is listed from the moment it is handed
// to the manager, before any of its events reach a controller or a cluster-aware runnable's Engage is called, so
// code that reacts to an engagement finds the cluster listed. Clusters still starting (whose cache has not synced
// yet) are not listed.
func (p *Provider) ListClusters() []multicluster.ClusterName {
	p.mu.Lock()
	defer p.mu.Unlock()
	names := make([]multicluster.ClusterName, 0, len(p.states))
	for _, name := range p.clusters.ClusterNames() {
		if s := p.states[name]; s != nil && (s.engaged || s.engaging) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}
