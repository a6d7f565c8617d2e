// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package builder_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/nop"
)

// newManager returns a multi-cluster manager around a controller-runtime manager of an unreachable host. Creating
// (not starting) it needs no API server: controller-runtime v0.22's REST mapper is lazy.
func newManager(t *testing.T, provider multicluster.Provider) mcmanager.Manager {
	t.Helper()
	// controller-runtime keeps a process-wide registry of controller names.
	return newManagerWith(t, provider, config.Controller{SkipNameValidation: ptr.To(true)})
}

// newManagerWith is newManager with the given controller options.
func newManagerWith(t *testing.T, provider multicluster.Provider, controllers config.Controller) mcmanager.Manager {
	t.Helper()
	mgr, err := manager.New(&rest.Config{Host: "http://127.0.0.1:1"}, manager.Options{
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: controllers,
	})
	if err != nil {
		t.Fatalf("creating the host manager: %v", err)
	}
	mcMgr, err := mcmanager.WithMultiCluster(mgr, provider)
	if err != nil {
		t.Fatalf("wrapping the host manager: %v", err)
	}
	return mcMgr
}

var noop = mcreconcile.Func(func(context.Context, mcreconcile.Request) (reconcile.Result, error) {
	return reconcile.Result{}, nil
})

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name    string
		build   func(mcmanager.Manager) error
		wantErr string
	}{
		{
			name: "nil reconciler",
			build: func(m mcmanager.Manager) error {
				_, err := mcbuilder.ControllerManagedBy(m).For(&corev1.ConfigMap{}).Build(nil)
				return err
			},
			wantErr: "must provide a non-nil Reconciler",
		},
		{
			name: "nil manager",
			build: func(mcmanager.Manager) error {
				_, err := mcbuilder.ControllerManagedBy(nil).For(&corev1.ConfigMap{}).Build(noop)
				return err
			},
			wantErr: "must provide a non-nil Manager",
		},
		{
			name: "For called twice",
			build: func(m mcmanager.Manager) error {
				return mcbuilder.ControllerManagedBy(m).For(&corev1.ConfigMap{}).For(&corev1.Secret{}).Complete(noop)
			},
			wantErr: "For(...) should only be called once",
		},
		{
			name: "Owns without For",
			build: func(m mcmanager.Manager) error {
				return mcbuilder.ControllerManagedBy(m).Named("owns-without-for").Owns(&corev1.Pod{}).Complete(noop)
			},
			wantErr: "Owns() can only be used together with For()",
		},
		{
			name: "no name and no For",
			build: func(m mcmanager.Manager) error {
				return mcbuilder.ControllerManagedBy(m).
					Watches(&corev1.Pod{}, mchandler.TypedEnqueueRequestForObject[client.Object]()).
					Complete(noop)
			},
			wantErr: "one of For() or Named() must be called",
		},
		{
			name: "For with a custom request type",
			build: func(m mcmanager.Manager) error {
				return mcbuilder.TypedControllerManagedBy[mcreconcile.WithCluster[string]](m).
					Named("for-custom-request").
					For(&corev1.ConfigMap{}).
					Complete(reconcile.TypedFunc[mcreconcile.WithCluster[string]](
						func(context.Context, mcreconcile.WithCluster[string]) (reconcile.Result, error) {
							return reconcile.Result{}, nil
						}))
			},
			wantErr: "can only be used with mcreconcile.Request",
		},
		{
			name: "reconciler set twice",
			build: func(m mcmanager.Manager) error {
				return mcbuilder.ControllerManagedBy(m).
					For(&corev1.ConfigMap{}).
					WithOptions(controller.TypedOptions[mcreconcile.Request]{Reconciler: noop}).
					Complete(noop)
			},
			wantErr: "reconciler was set via WithOptions()",
		},
		{
			name: "Watches with a nil handler",
			build: func(m mcmanager.Manager) error {
				return mcbuilder.ControllerManagedBy(m).For(&corev1.ConfigMap{}).Watches(&corev1.Pod{}, nil).Complete(noop)
			},
			wantErr: "needs a non-nil event handler",
		},
		{
			// controller-runtime's builder reports this first when neither is set.
			name: "no name, no For and no watches",
			build: func(m mcmanager.Manager) error {
				return mcbuilder.ControllerManagedBy(m).Complete(noop)
			},
			wantErr: "one of For() or Named() must be called",
		},
		{
			name: "no watches",
			build: func(m mcmanager.Manager) error {
				return mcbuilder.ControllerManagedBy(m).Named("no-watches").Complete(noop)
			},
			wantErr: "there are no watches configured, controller will never get triggered. " +
				"Use For(), Owns(), Watches() or WatchesRawSource() to set them up",
		},
		{
			name: "For of a type the scheme does not know",
			build: func(m mcmanager.Manager) error {
				return mcbuilder.ControllerManagedBy(m).For(&unknownObject{}).Complete(noop)
			},
			wantErr: "no kind is registered",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.build(newManager(t, nil))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Build() error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// A Build that fails because of its watches makes no controller: its name, checked against controller-runtime's
// process-wide registry of names, is still free for a builder that succeeds. (controller-runtime's own builder
// makes and registers the controller before it checks the watches.)
func TestFailedBuildRegistersNothing(t *testing.T) {
	m := newManagerWith(t, nil, config.Controller{})
	for _, tt := range []struct {
		name  string
		build func(*mcbuilder.Builder) *mcbuilder.Builder
	}{
		{name: "no watches", build: func(b *mcbuilder.Builder) *mcbuilder.Builder { return b }},
		{name: "Owns without For", build: func(b *mcbuilder.Builder) *mcbuilder.Builder { return b.Owns(&corev1.Pod{}) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			name := "failed-build-" + strings.ReplaceAll(tt.name, " ", "-")
			if err := tt.build(mcbuilder.ControllerManagedBy(m).Named(name)).Complete(noop); err == nil {
				t.Fatal("Complete() succeeded, want an error")
			}
			if err := mcbuilder.ControllerManagedBy(m).Named(name).
				Watches(&corev1.ConfigMap{}, mchandler.TypedEnqueueRequestForObject[client.Object]()).
				Complete(noop); err != nil {
				t.Errorf("Complete() under the name of the failed build: %v", err)
			}
		})
	}
}

// unknownObject is a client.Object that no scheme knows.
type unknownObject struct{ corev1.ConfigMap }

func TestBuild(t *testing.T) {
	m := newManager(t, nil)
	var started atomic.Bool
	raw := source.TypedFunc[mcreconcile.Request](func(context.Context, workqueue.TypedRateLimitingInterface[mcreconcile.Request]) error {
		started.Store(true)
		return nil
	})

	ctrl, err := mcbuilder.ControllerManagedBy(m).
		For(&appsv1.ReplicaSet{}, mcbuilder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&corev1.Pod{}, mcbuilder.OnlyMetadata).
		Owns(&corev1.ConfigMap{}, mcbuilder.MatchEveryOwner).
		Watches(&corev1.Secret{}, mchandler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
			return nil
		})).
		WatchesMetadata(&appsv1.Deployment{}, mchandler.TypedEnqueueRequestForObject[client.Object]()).
		WatchesRawSource(raw).
		WithEventFilter(predicate.ResourceVersionChangedPredicate{}).
		WithLogConstructor(func(*mcreconcile.Request) logr.Logger { return logr.Discard() }).
		WithClusterNotFoundWrapper(false).
		Build(noop)
	if err != nil {
		t.Fatalf("Build() error = %v", err)
	}
	if ctrl == nil {
		t.Fatal("Build() returned a nil controller")
	}
	if started.Load() {
		t.Error("Build started a raw source before the manager started")
	}
}

func TestBuildTypedWithWatches(t *testing.T) {
	type key = mcreconcile.WithCluster[string]
	err := mcbuilder.TypedControllerManagedBy[key](newManager(t, nil)).
		Named("typed-watches").
		Watches(&corev1.ConfigMap{}, mchandler.TypedEnqueueRequestsFromMapFunc[client.Object, key](
			func(_ context.Context, obj client.Object) []key {
				return []key{{Request: obj.GetName()}}
			})).
		Complete(reconcile.TypedFunc[key](func(context.Context, key) (reconcile.Result, error) {
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatalf("Complete() error = %v", err)
	}
}

// fakeCluster is a fleet cluster for engagement tests: it records GetCache calls, which a watch makes for every
// cluster it covers, and has a scheme for metadata-only watches. Other methods panic.
type fakeCluster struct {
	cluster.Cluster
	caches atomic.Int32
}

func (c *fakeCluster) GetCache() cache.Cache {
	c.caches.Add(1)
	return nil
}

func (c *fakeCluster) GetScheme() *runtime.Scheme { return scheme.Scheme }

func (c *fakeCluster) GetRESTMapper() meta.RESTMapper { return meta.NewDefaultRESTMapper(nil) }

// mapProvider serves clusters from a map.
type mapProvider map[multicluster.ClusterName]cluster.Cluster

func (p mapProvider) Get(_ context.Context, name multicluster.ClusterName) (cluster.Cluster, error) {
	if cl, ok := p[name]; ok {
		return cl, nil
	}
	return nil, fmt.Errorf("cluster %q: %w", name, multicluster.ErrClusterNotFound)
}

func (p mapProvider) IndexField(context.Context, client.Object, string, client.IndexerFunc) error {
	return nil
}

// watchedClusters records the clusters a watch builds its handler for: the host when the controller is built,
// fleet clusters when they are engaged.
type watchedClusters struct {
	mu    sync.Mutex
	names []multicluster.ClusterName
}

func (w *watchedClusters) handler() mchandler.EventHandlerFunc {
	return func(name multicluster.ClusterName, cl cluster.Cluster) mchandler.EventHandler {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.names = append(w.names, name)
		return mchandler.EnqueueRequestForObject(name, cl)
	}
}

func (w *watchedClusters) get() []multicluster.ClusterName {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Sorted(slices.Values(w.names))
}

func TestWatchesEngageOptions(t *testing.T) {
	a, b := &fakeCluster{}, &fakeCluster{}
	fleet := mapProvider{"a": a, "b": b}
	onlyA := func(name multicluster.ClusterName, _ cluster.Cluster) bool { return name == "a" }
	hostOrA := func(name multicluster.ClusterName, _ cluster.Cluster) bool { return name == "" || name == "a" }

	tests := []struct {
		name     string
		provider multicluster.Provider
		opts     func(ctx context.Context) []mcbuilder.WatchesOption
		want     []multicluster.ClusterName
	}{
		{name: "fleet by default", provider: fleet, want: []multicluster.ClusterName{"a", "b"}},
		{name: "host and fleet without a provider", provider: nil, want: []multicluster.ClusterName{"", "a", "b"}},
		{name: "host and fleet with a host-only provider", provider: nop.New(), want: []multicluster.ClusterName{"", "a", "b"}},
		{
			name:     "host added",
			provider: fleet,
			opts: func(context.Context) []mcbuilder.WatchesOption {
				return []mcbuilder.WatchesOption{mcbuilder.WithEngageWithLocalCluster(true)}
			},
			want: []multicluster.ClusterName{"", "a", "b"},
		},
		{
			name:     "host removed in single-cluster mode",
			provider: nil,
			opts: func(context.Context) []mcbuilder.WatchesOption {
				return []mcbuilder.WatchesOption{mcbuilder.WithEngageWithLocalCluster(false)}
			},
			want: []multicluster.ClusterName{"a", "b"},
		},
		{
			name:     "host only",
			provider: fleet,
			opts: func(context.Context) []mcbuilder.WatchesOption {
				return []mcbuilder.WatchesOption{
					mcbuilder.WithEngageWithLocalCluster(true), mcbuilder.WithEngageWithProviderClusters(false),
				}
			},
			want: []multicluster.ClusterName{""},
		},
		{
			name:     "nothing",
			provider: fleet,
			opts: func(context.Context) []mcbuilder.WatchesOption {
				return []mcbuilder.WatchesOption{mcbuilder.WithEngageWithProviderClusters(false)}
			},
			want: nil,
		},
		{
			name:     "filter",
			provider: fleet,
			opts: func(context.Context) []mcbuilder.WatchesOption {
				return []mcbuilder.WatchesOption{mcbuilder.WithClusterFilter(onlyA)}
			},
			want: []multicluster.ClusterName{"a"},
		},
		{
			// As in the reference implementation: the filter restricts the fleet only.
			name:     "filter does not apply to the host",
			provider: fleet,
			opts: func(context.Context) []mcbuilder.WatchesOption {
				return []mcbuilder.WatchesOption{mcbuilder.WithEngageWithLocalCluster(true), mcbuilder.WithClusterFilter(onlyA)}
			},
			want: []multicluster.ClusterName{"", "a"},
		},
		{
			name:     "filter does not apply to the host in single-cluster mode",
			provider: nil,
			opts: func(context.Context) []mcbuilder.WatchesOption {
				return []mcbuilder.WatchesOption{mcbuilder.WithClusterFilter(onlyA)}
			},
			want: []multicluster.ClusterName{"", "a"},
		},
		{
			name:     "filter accepting the host",
			provider: fleet,
			opts: func(context.Context) []mcbuilder.WatchesOption {
				return []mcbuilder.WatchesOption{mcbuilder.WithEngageWithLocalCluster(true), mcbuilder.WithClusterFilter(hostOrA)}
			},
			want: []multicluster.ClusterName{"", "a"},
		},
		{
			name:     "clusters from another provider and the host",
			provider: fleet,
			opts: func(ctx context.Context) []mcbuilder.WatchesOption {
				return []mcbuilder.WatchesOption{
					mcbuilder.WithEngageWithLocalCluster(true), mcbuilder.WithClustersFromProvider(ctx, mapProvider{"b": b}),
				}
			},
			want: []multicluster.ClusterName{"", "b"},
		},
		{
			name:     "clusters from another provider",
			provider: fleet,
			opts: func(ctx context.Context) []mcbuilder.WatchesOption {
				return []mcbuilder.WatchesOption{mcbuilder.WithClustersFromProvider(ctx, mapProvider{"a": a, "b": &fakeCluster{}})}
			},
			want: []multicluster.ClusterName{"a"},
		},
		{
			name:     "metadata only",
			provider: fleet,
			opts: func(context.Context) []mcbuilder.WatchesOption {
				return []mcbuilder.WatchesOption{mcbuilder.OnlyMetadata, mcbuilder.WithEngageWithLocalCluster(true)}
			},
			want: []multicluster.ClusterName{"", "a", "b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newManager(t, tt.provider)
			var watched watchedClusters
			var opts []mcbuilder.WatchesOption
			if tt.opts != nil {
				opts = tt.opts(t.Context())
			}
			if err := mcbuilder.ControllerManagedBy(m).
				Named("engage-options").
				Watches(&corev1.ConfigMap{}, watched.handler(), opts...).
				Complete(noop); err != nil {
				t.Fatalf("Complete() error = %v", err)
			}

			for name, cl := range fleet {
				if err := m.Engage(t.Context(), name, cl); err != nil {
					t.Fatalf("Engage(%q) error = %v", name, err)
				}
			}

			if got := watched.get(); !slices.Equal(got, tt.want) {
				t.Errorf("watched clusters %q, want %q", got, tt.want)
			}
		})
	}
}

func TestForAndOwnsEngageOptions(t *testing.T) {
	tests := []struct {
		name  string
		build func(*mcbuilder.Builder) *mcbuilder.Builder
		wantA int32
		wantB int32
	}{
		{
			name:  "For and Owns watch every fleet cluster",
			build: func(b *mcbuilder.Builder) *mcbuilder.Builder { return b.For(&appsv1.ReplicaSet{}).Owns(&corev1.Pod{}) },
			wantA: 2, wantB: 2,
		},
		{
			name: "For filtered, Owns not",
			build: func(b *mcbuilder.Builder) *mcbuilder.Builder {
				return b.For(&appsv1.ReplicaSet{}, mcbuilder.WithClusterFilter(func(name multicluster.ClusterName, _ cluster.Cluster) bool {
					return name == "a"
				})).Owns(&corev1.Pod{})
			},
			wantA: 2, wantB: 1,
		},
		{
			name: "Owns off the fleet",
			build: func(b *mcbuilder.Builder) *mcbuilder.Builder {
				return b.For(&appsv1.ReplicaSet{}).Owns(&corev1.Pod{}, mcbuilder.WithEngageWithProviderClusters(false), mcbuilder.OnlyMetadata)
			},
			wantA: 1, wantB: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := &fakeCluster{}, &fakeCluster{}
			m := newManager(t, mapProvider{"a": a, "b": b})
			if err := tt.build(mcbuilder.ControllerManagedBy(m)).Complete(noop); err != nil {
				t.Fatalf("Complete() error = %v", err)
			}
			for name, cl := range map[multicluster.ClusterName]cluster.Cluster{"a": a, "b": b} {
				if err := m.Engage(t.Context(), name, cl); err != nil {
					t.Fatalf("Engage(%q) error = %v", name, err)
				}
			}
			if gotA, gotB := a.caches.Load(), b.caches.Load(); gotA != tt.wantA || gotB != tt.wantB {
				t.Errorf("watches per cluster: a %d, b %d; want a %d, b %d", gotA, gotB, tt.wantA, tt.wantB)
			}
		})
	}
}

func TestClusterNotFoundWrapperIsAppliedByDefault(t *testing.T) {
	gone := mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
		return reconcile.Result{}, fmt.Errorf("cluster %q: %w", req.ClusterName, multicluster.ErrClusterNotFound)
	})
	tests := []struct {
		name    string
		build   func(*mcbuilder.Builder) *mcbuilder.Builder
		wantErr bool
	}{
		{name: "default", build: func(b *mcbuilder.Builder) *mcbuilder.Builder { return b }},
		{
			name:  "enabled",
			build: func(b *mcbuilder.Builder) *mcbuilder.Builder { return b.WithClusterNotFoundWrapper(true) },
		},
		{
			name:    "disabled",
			build:   func(b *mcbuilder.Builder) *mcbuilder.Builder { return b.WithClusterNotFoundWrapper(false) },
			wantErr: true,
		},
	}
	for _, tt := range tests {
		for _, clusterName := range []string{"", "a"} {
			t.Run(fmt.Sprintf("%s/cluster=%q", tt.name, clusterName), func(t *testing.T) {
				m := newManager(t, nil)
				ctrl, err := tt.build(mcbuilder.ControllerManagedBy(m).
					Named("cluster-not-found").
					Watches(&corev1.ConfigMap{}, mchandler.TypedEnqueueRequestForObject[client.Object]())).
					Build(gone)
				if err != nil {
					t.Fatalf("Build() error = %v", err)
				}
				// Engaged, so the controller does not drop the request itself before the reconciler runs.
				if err := m.Engage(t.Context(), "a", &fakeCluster{}); err != nil {
					t.Fatalf("Engage() error = %v", err)
				}

				_, err = ctrl.Reconcile(t.Context(), mcreconcile.Request{ClusterName: multicluster.ClusterName(clusterName)})
				if gotErr := err != nil; gotErr != tt.wantErr {
					t.Errorf("Reconcile() error = %v, want error: %v", err, tt.wantErr)
				}
			})
		}
	}
}

// configMapWebhook defaults and validates ConfigMaps with controller-runtime's typed webhook interfaces.
type configMapWebhook struct{}

func (configMapWebhook) Default(context.Context, *corev1.ConfigMap) error { return nil }

func (configMapWebhook) ValidateCreate(context.Context, *corev1.ConfigMap) (admission.Warnings, error) {
	return nil, nil
}

func (configMapWebhook) ValidateUpdate(context.Context, *corev1.ConfigMap, *corev1.ConfigMap) (admission.Warnings, error) {
	return nil, nil
}

func (configMapWebhook) ValidateDelete(context.Context, *corev1.ConfigMap) (admission.Warnings, error) {
	return nil, nil
}

// untypedWebhook is a webhook written against the deprecated untyped interfaces, which the builder still takes.
type untypedWebhook struct{}

func (untypedWebhook) Default(context.Context, runtime.Object) error { return nil }

func TestWebhookManagedBy(t *testing.T) {
	host := newManager(t, nil).GetLocalManager()
	err := mcbuilder.WebhookManagedBy(host, &corev1.ConfigMap{}).
		WithDefaulter(configMapWebhook{}).
		WithValidator(configMapWebhook{}).
		WithLogConstructor(func(base logr.Logger, _ *admission.Request) logr.Logger { return base }).
		RecoverPanic(true).
		Complete()
	if err != nil {
		t.Fatalf("Complete() error = %v", err)
	}

	mux := host.GetWebhookServer().WebhookMux()
	for _, path := range []string{"/mutate--v1-configmap", "/validate--v1-configmap"} {
		if _, pattern := mux.Handler(httptest.NewRequest(http.MethodPost, path, nil)); pattern != path {
			t.Errorf("no webhook registered at %s (matched %q)", path, pattern)
		}
	}
}

func TestWebhookManagedByCustomPathAndUntypedDefaulter(t *testing.T) {
	host := newManager(t, nil).GetLocalManager()
	//nolint:staticcheck // the deprecated path must keep working
	blder := mcbuilder.WebhookManagedBy(host, &corev1.Secret{}).WithCustomDefaulter(untypedWebhook{})
	if err := blder.WithDefaulterCustomPath("/custom-secret-defaulter").Complete(); err != nil {
		t.Fatalf("Complete() error = %v", err)
	}
	mux := host.GetWebhookServer().WebhookMux()
	if _, pattern := mux.Handler(httptest.NewRequest(http.MethodPost, "/custom-secret-defaulter", nil)); pattern != "/custom-secret-defaulter" {
		t.Errorf("no webhook registered at the custom path (matched %q)", pattern)
	}
}
