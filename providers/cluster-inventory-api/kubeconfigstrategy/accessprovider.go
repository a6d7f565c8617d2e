package kubeconfigstrategy

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
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

	// AllowInsecureTLS lets a profile's access-provider entry switch off the verification of its server's
	// certificate (insecure-skip-tls-verify) or name a server without TLS. By default such a profile is refused
	// (a Warning Event on it and an error naming the field and this option): whoever writes the profile's status
	// would otherwise have the plugin's credentials sent to a server nobody verified. The plugin itself is the
	// operator's, from Config; the profile cannot name another, nor a file of the controller's filesystem.
	AllowInsecureTLS bool
}

// CredentialsProviderOption configures the credential-plugin strategy: the earlier name of AccessProviderOption.
//
// Deprecated: use AccessProviderOption; a credentials.CredentialsProvider is an access.Config.
type CredentialsProviderOption struct {
	// Provider maps credential-provider types to plugins; see access.NewFromFile. Required.
	Provider *credentials.CredentialsProvider //nolint:staticcheck // the deprecated option keeps its type

	// AllowInsecureTLS is AccessProviderOption.AllowInsecureTLS.
	AllowInsecureTLS bool
}

// accessStrategy builds configs with the credential plugins of an access-provider file.
type accessStrategy struct {
	config           *access.Config
	allowInsecureTLS bool
}

// newAccessStrategy returns the strategy of cfg, which it validates (a hand-built Config may not have been).
func newAccessStrategy(cfg *access.Config, allowInsecureTLS bool) (*accessStrategy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("kubeconfig strategy: invalid access-provider configuration: %w", err)
	}
	return &accessStrategy{config: cfg, allowInsecureTLS: allowInsecureTLS}, nil
}

// GetKubeConfig builds the rest.Config of clp's cluster with the first configured plugin the profile offers. It
// reads nothing from the hub, and runs no plugin: client-go runs it when the config is used. A profile whose entry
// switches off TLS verification is refused unless AllowInsecureTLS is set; the error matches
// clusters.ErrKubeconfigRefused.
func (s *accessStrategy) GetKubeConfig(_ context.Context, _ client.Client, clp *clusterinventoryv1alpha1.ClusterProfile) (*rest.Config, error) {
	cfg, err := s.config.BuildConfigFromCP(clp)
	if err != nil {
		return nil, err
	}
	// What the profile contributes (server and TLS) is judged; the plugin is the operator's.
	fromProfile := rest.CopyConfig(cfg)
	fromProfile.ExecProvider = nil
	err = clusters.KubeconfigPolicy{AllowInsecureTLS: s.allowInsecureTLS}.CheckRESTConfig(fromProfile)
	if refused := (*clusters.KubeconfigRefusedError)(nil); errors.As(err, &refused) {
		reasons := make([]string, 0, len(refused.Refusals))
		for _, r := range refused.Refusals {
			reasons = append(reasons, r.Reason)
		}
		return nil, fmt.Errorf("cluster profile %s/%s: its access-provider entry %s (set AccessProviderOption.AllowInsecureTLS to allow it): %w",
			clp.Namespace, clp.Name, strings.Join(reasons, " and "), clusters.ErrKubeconfigRefused)
	}
	if err != nil {
		return nil, fmt.Errorf("cluster profile %s/%s: %w", clp.Namespace, clp.Name, err)
	}
	return cfg, nil
}

// CustomWatches returns nil: the profile itself carries everything the strategy reads.
func (s *accessStrategy) CustomWatches() []CustomWatch { return nil }
