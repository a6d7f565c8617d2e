package kubeconfigstrategy

import (
	"context"
	"fmt"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/access"
	clusterinventoryv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/credentials" //nolint:staticcheck // the deprecated option keeps its type
)

// AccessProviderOption configures the access-provider strategy (KEP-5339): for each profile, the first plugin of
// Config (in its order) whose type the profile offers in status.accessProviders (or status.credentialProviders)
// reaches the cluster; see access.Config.BuildConfigFromCP.
type AccessProviderOption struct {
	// Config maps access-provider types to credential plugins; read it with access.NewFromFile. Required.
	Config *access.Config
}

// CredentialsProviderOption configures the credential-plugin strategy: the earlier name of AccessProviderOption.
//
// Deprecated: use AccessProviderOption; a credentials.CredentialsProvider is an access.Config.
type CredentialsProviderOption struct {
	// Provider maps credential-provider types to plugins; see access.NewFromFile. Required.
	Provider *credentials.CredentialsProvider //nolint:staticcheck // the deprecated option keeps its type
}

// accessStrategy builds configs with the credential plugins of an access-provider file.
type accessStrategy struct {
	config *access.Config
}

// newAccessStrategy returns the strategy of cfg, which it validates (a hand-built Config may not have been).
func newAccessStrategy(cfg *access.Config) (*accessStrategy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("kubeconfig strategy: invalid access-provider configuration: %w", err)
	}
	return &accessStrategy{config: cfg}, nil
}

// GetKubeConfig builds the rest.Config of clp's cluster with the first configured plugin the profile offers. It
// reads nothing from the hub, and runs no plugin: client-go runs it when the config is used.
func (s *accessStrategy) GetKubeConfig(_ context.Context, _ client.Client, clp *clusterinventoryv1alpha1.ClusterProfile) (*rest.Config, error) {
	return s.config.BuildConfigFromCP(clp)
}

// CustomWatches returns nil: the profile itself carries everything the strategy reads.
func (s *accessStrategy) CustomWatches() []CustomWatch { return nil }
