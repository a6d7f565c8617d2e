// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfigstrategy

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/client-go/rest"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	clusteraccess "sigs.k8s.io/cluster-inventory-api/pkg/access"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/access"
)

// AccessProviderOption configures the access-provider strategy (KEP-5339): for each profile, the first plugin of
// Provider (in its order) whose type the profile offers in status.accessProviders (or status.credentialProviders)
// reaches the cluster; see access.BuildConfigFromCP.
type AccessProviderOption struct {
	// Provider maps access-provider types to credential plugins: the Config of
	// sigs.k8s.io/cluster-inventory-api/pkg/access, read with that package's NewFromFile or with
	// access.NewFromFile (which also validates it). Required, unless the deprecated Config is set.
	Provider *clusteraccess.Config

	// Config is the earlier name of Provider, of the same type; set one of the two.
	//
	// Deprecated: use Provider, the field's name in the reference implementation.
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
// Deprecated: use AccessProviderOption; a credentials.CredentialsProvider is the access.Config Provider takes.
type CredentialsProviderOption = AccessProviderOption

// accessStrategy builds configs with the credential plugins of an access-provider file.
type accessStrategy struct {
	config           *access.Config
	allowInsecureTLS bool
}

// newAccessStrategy returns the strategy of o, whose Config it validates (a hand-built one, or one read by the
// published NewFromFile, has not been). field names the option in errors.
func newAccessStrategy(field string, o AccessProviderOption) (*accessStrategy, error) {
	cfg := o.Provider
	switch {
	case cfg == nil && o.Config == nil:
		return nil, fmt.Errorf("kubeconfig strategy: the %s strategy needs a Provider", field)
	case cfg == nil:
		cfg = o.Config
	case o.Config != nil && o.Config != cfg:
		return nil, errors.New("kubeconfig strategy: set only one of Provider and the deprecated Config")
	}
	if err := access.Validate(cfg); err != nil {
		return nil, fmt.Errorf("kubeconfig strategy: invalid access-provider configuration: %w", err)
	}
	return &accessStrategy{config: cfg, allowInsecureTLS: o.AllowInsecureTLS}, nil
}

// GetKubeConfig builds the rest.Config of clp's cluster with the first configured plugin the profile offers (see
// access.BuildConfigFromCP). It reads nothing from the hub, and runs no plugin: client-go runs it when the config is used. A profile whose entry
// switches off TLS verification is refused unless AllowInsecureTLS is set; the error matches
// clusters.ErrKubeconfigRefused.
func (s *accessStrategy) GetKubeConfig(_ context.Context, _ client.Client, clp *clusterinventoryv1alpha1.ClusterProfile) (*rest.Config, error) {
	cfg, err := access.BuildConfigFromCP(s.config, clp)
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
