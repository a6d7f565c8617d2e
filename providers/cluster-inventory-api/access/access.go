// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package access

import (
	"errors"
	"fmt"
	"os"
	"slices"

	clusteraccess "sigs.k8s.io/cluster-inventory-api/pkg/access"
	"sigs.k8s.io/yaml"
)

const (
	// DefaultProviderFile is the conventional name of the access-provider file.
	DefaultProviderFile = "clusterprofile-provider-file.json"

	// ProviderFileFlag is the conventional name of the command-line flag that names the access-provider file (the
	// flag clusteraccess.SetupProviderFileFlag defines).
	ProviderFileFlag = "clusterprofile-provider-file"
)

// Config is the access-provider file of sigs.k8s.io/cluster-inventory-api/pkg/access: the plugins that reach a
// ClusterProfile's cluster, tried in order. A Config read by that package's NewFromFile, or built by hand, is used
// as it is; New and NewFromFile here also validate it. A Config is safe for concurrent use as long as it is not
// modified.
type Config = clusteraccess.Config

// Provider maps one access-provider type (Name, as in a ClusterProfile's status.accessProviders[].name) to a client-go
// exec credential plugin (ExecConfig), with the policies for the arguments and environment variables a profile may
// add to it (the extensions clusterprofiles.multicluster.x-k8s.io/exec/additional-args and .../additional-envs).
type Provider = clusteraccess.Provider

// New returns a Config for the given plugins, tried in order. Unlike clusteraccess.New, it copies providers and
// returns an error if the Config is not valid (see Validate).
func New(providers []Provider) (*Config, error) {
	c := clusteraccess.New(slices.Clone(providers))
	if err := Validate(c); err != nil {
		return nil, err
	}
	return c, nil
}

// NewFromFile reads an access-provider file, JSON or YAML, and returns its Config. Unlike clusteraccess.NewFromFile,
// it rejects unknown fields (a misspelt "execConfig" would otherwise leave a provider without a plugin) and returns
// an error naming the file if the Config is not valid (see Validate).
func NewFromFile(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading access-provider file: %w", err)
	}
	var c Config
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, fmt.Errorf("parsing access-provider file %s: %w", path, err)
	}
	if err := Validate(&c); err != nil {
		return nil, fmt.Errorf("access-provider file %s: %w", path, err)
	}
	return &c, nil
}

// Validate returns an error if c is nil, a provider has no name, no execConfig or no command, a name repeats, or a
// profile-sourced policy is not one the published package knows. The errors name the provider, never its plugin's
// environment.
func Validate(c *Config) error {
	if c == nil {
		return errors.New("no access-provider configuration")
	}
	seen := map[string]bool{}
	for i, p := range c.Providers {
		switch {
		case p.Name == "":
			return fmt.Errorf("access provider %d has no name", i)
		case p.ExecConfig == nil || p.ExecConfig.Command == "":
			return fmt.Errorf("access provider %q has no execConfig.command", p.Name)
		case seen[p.Name]:
			return fmt.Errorf("access provider %q appears twice", p.Name)
		}
		seen[p.Name] = true
		switch p.ProfileSourcedCLIArgsPolicy {
		case "", clusteraccess.ProfileSourcedCLIArgsPolicyAppend, clusteraccess.ProfileSourcedCLIArgsPolicyIgnore:
		default:
			return fmt.Errorf("access provider %q: unknown profileSourcedCLIArgsPolicy %q", p.Name, p.ProfileSourcedCLIArgsPolicy)
		}
		switch p.ProfileSourcedEnvVarsPolicy {
		case "", clusteraccess.ProfileSourcedEnvVarsPolicyAppendIfNotExists, clusteraccess.ProfileSourcedEnvVarsPolicyReplace,
			clusteraccess.ProfileSourcedEnvVarsPolicyIgnore:
		default:
			return fmt.Errorf("access provider %q: unknown profileSourcedEnvVarsPolicy %q", p.Name, p.ProfileSourcedEnvVarsPolicy)
		}
	}
	return nil
}

// ProviderNames returns the names of c's access-provider types, in order.
func ProviderNames(c *Config) []string {
	names := make([]string, 0, len(c.Providers))
	for _, p := range c.Providers {
		names = append(names, p.Name)
	}
	return names
}

// copyProvider returns p with its own copy of the exec configuration, which the published BuildConfigFromCP
// changes in place when it appends a profile's arguments.
func copyProvider(p Provider) Provider {
	p.ExecConfig = p.ExecConfig.DeepCopy()
	return p
}
