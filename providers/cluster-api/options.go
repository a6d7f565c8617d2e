package capi

import (
	"context"
	"time"

	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
)

const (
	// KubeconfigSecretSuffix is appended to a Cluster's name to name the Secret holding its kubeconfig.
	KubeconfigSecretSuffix = "-kubeconfig"
	// KubeconfigSecretKey is the key of the kubeconfig in the kubeconfig Secret's data.
	KubeconfigSecretKey = "value"

	// DefaultWaitCacheTimeout is how long a new cluster's cache may take to sync when Options.WaitCacheTimeout is
	// unset; the cluster is retried with backoff after that.
	DefaultWaitCacheTimeout = 2 * time.Minute
)

// Options are the options of a Cluster API provider. The zero value is valid: see each field for its default.
type Options struct {
	// ClusterOptions are applied to every cluster.Cluster the provider builds (scheme, cache and client options),
	// also when NewCluster is set.
	ClusterOptions []cluster.Option

	// GetSecret returns the rest.Config for a Cluster. Default: read the Cluster's kubeconfig Secret
	// ("<name>-kubeconfig", key "value", in the Cluster's namespace) with the host manager's API reader and parse it.
	GetSecret func(ctx context.Context, ccl *clusterv1.Cluster) (*rest.Config, error)

	// NewCluster builds the cluster.Cluster of a Cluster from its rest.Config. Default: cluster.New(cfg, opts...).
	NewCluster func(ctx context.Context, ccl *clusterv1.Cluster, cfg *rest.Config, opts ...cluster.Option) (cluster.Cluster, error)

	// IsProvisioned decides whether a Cluster is ready to be engaged. Default: Provisioned.
	IsProvisioned func(ccl *clusterv1.Cluster) bool

	// WaitCacheTimeout bounds how long a new cluster's cache may take to sync. Default: DefaultWaitCacheTimeout.
	WaitCacheTimeout time.Duration

	// ControllerName names the provider's controller on the host manager. Default: "multicluster-capi-provider".
	ControllerName string
}

// complete returns the options with their defaults applied; GetSecret's default needs the host manager and is
// set by New.
func (o Options) complete() Options {
	if o.NewCluster == nil {
		o.NewCluster = func(_ context.Context, _ *clusterv1.Cluster, cfg *rest.Config, opts ...cluster.Option) (cluster.Cluster, error) {
			return cluster.New(cfg, opts...)
		}
	}
	if o.IsProvisioned == nil {
		o.IsProvisioned = Provisioned
	}
	if o.WaitCacheTimeout <= 0 {
		o.WaitCacheTimeout = DefaultWaitCacheTimeout
	}
	if o.ControllerName == "" {
		o.ControllerName = "multicluster-capi-provider"
	}
	return o
}

// Provisioned reports whether a Cluster can be engaged: it is not being deleted, and either its control plane is
// initialized (status.initialization.controlPlaneInitialized, after which Cluster API has written the kubeconfig
// Secret) or its phase is Provisioned.
func Provisioned(ccl *clusterv1.Cluster) bool {
	if !ccl.DeletionTimestamp.IsZero() {
		return false
	}
	if init := ccl.Status.Initialization.ControlPlaneInitialized; init != nil && *init {
		return true
	}
	return clusterv1.ClusterPhase(ccl.Status.Phase) == clusterv1.ClusterPhaseProvisioned
}
