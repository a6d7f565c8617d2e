package kubeconfigstrategy

import (
	"context"
	"errors"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterinventoryv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/credentials"
)

// Interface obtains the rest.Config of a ClusterProfile's cluster.
type Interface interface {
	// GetKubeConfig returns the rest.Config reaching clp's cluster; cli is a client of the hub. Errors name the
	// profile and never contain credentials.
	GetKubeConfig(ctx context.Context, cli client.Client, clp *clusterinventoryv1alpha1.ClusterProfile) (*rest.Config, error)

	// CustomWatches are extra watches on the hub whose events re-reconcile profiles, such as the Secrets of the
	// Secret strategy.
	CustomWatches() []CustomWatch
}

// CustomWatch is a watch the provider's controller adds on the hub.
type CustomWatch struct {
	Object       client.Object
	EventHandler handler.TypedEventHandler[client.Object, reconcile.Request]
	Opts         []builder.WatchesOption
}

// Option selects a strategy: set exactly one field.
type Option struct {
	// Secret reads kubeconfigs from labelled Secrets on the hub.
	Secret *SecretStrategyOption

	// CredentialsProvider builds configs from credential plugins (KEP-5339).
	CredentialsProvider *CredentialsProviderOption
}

// CredentialsProviderOption configures the credential-plugin strategy.
type CredentialsProviderOption struct {
	// Provider maps credential-provider types to plugins; see credentials.NewFromFile.
	Provider *credentials.CredentialsProvider
}

// New returns the strategy that option selects. It returns an error unless exactly one strategy is set and
// complete.
func New(_ context.Context, option Option) (Interface, error) {
	switch {
	case option.Secret != nil && option.CredentialsProvider != nil:
		return nil, errors.New("kubeconfig strategy: set either Secret or CredentialsProvider, not both")
	case option.Secret != nil:
		if option.Secret.ConsumerName == "" {
			return nil, errors.New("kubeconfig strategy: the Secret strategy needs a ConsumerName")
		}
		return &secretStrategy{consumer: option.Secret.ConsumerName}, nil
	case option.CredentialsProvider != nil:
		if option.CredentialsProvider.Provider == nil {
			return nil, errors.New("kubeconfig strategy: the CredentialsProvider strategy needs a Provider")
		}
		return &credentialsStrategy{provider: option.CredentialsProvider.Provider}, nil
	default:
		return nil, errors.New("kubeconfig strategy: set Secret or CredentialsProvider")
	}
}

// credentialsStrategy builds configs with credential plugins.
type credentialsStrategy struct {
	provider *credentials.CredentialsProvider
}

func (s *credentialsStrategy) GetKubeConfig(_ context.Context, _ client.Client, clp *clusterinventoryv1alpha1.ClusterProfile) (*rest.Config, error) {
	return s.provider.BuildConfigFromCP(clp)
}

func (s *credentialsStrategy) CustomWatches() []CustomWatch { return nil }
