// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package credentials

import (
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/access"
)

// DefaultProviderFile is the conventional name of the credential-provider file.
//
// Deprecated: use access.DefaultProviderFile.
const DefaultProviderFile = access.DefaultProviderFile

// Provider maps one credential-provider type to an exec credential plugin.
//
// Deprecated: use access.Provider.
type Provider = access.Provider

// File is the credential-provider file: sigs.k8s.io/cluster-inventory-api/pkg/access's Config.
//
// Deprecated: use access.Config, which is the same type.
type File = access.Config

// CredentialsProvider builds rest.Configs for ClusterProfiles from credential plugins; it is an access.Config, the
// Config of sigs.k8s.io/cluster-inventory-api/pkg/access.
//
// Deprecated: use access.Config.
type CredentialsProvider = access.Config //nolint:revive // the name of the reference library's type, kept for compatibility

// New returns a CredentialsProvider for the given plugins, tried in order; see access.New.
//
// Deprecated: use access.New.
func New(providers []Provider) (*CredentialsProvider, error) {
	return access.New(providers)
}

// NewFromFile reads a credential-provider file; see access.NewFromFile.
//
// Deprecated: use access.NewFromFile.
func NewFromFile(path string) (*CredentialsProvider, error) {
	return access.NewFromFile(path)
}
