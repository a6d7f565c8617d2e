package access

import (
	"fmt"
	"os"

	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"sigs.k8s.io/yaml"
)

const (
	// DefaultProviderFile is the conventional name of the access-provider file.
	DefaultProviderFile = "clusterprofile-provider-file.json"

	// ProviderFileFlag is the conventional name of the command-line flag that names the access-provider file.
	ProviderFileFlag = "clusterprofile-provider-file"
)

// Provider maps one access-provider type to an exec credential plugin.
type Provider struct {
	// Name is the access-provider type, as in a ClusterProfile's status.accessProviders[].name (or
	// status.credentialProviders[].name).
	Name string `json:"name"`

	// ExecConfig is the client-go exec plugin configuration (the schema of a kubeconfig user's "exec").
	ExecConfig clientcmdv1.ExecConfig `json:"execConfig"`
}

// Config is the access-provider file: the plugins that reach a ClusterProfile's cluster, tried in order. Build it
// with New or NewFromFile, which validate it. A Config is safe for concurrent use as long as it is not modified.
type Config struct {
	// Providers are the access-provider types this controller can use, in order of preference.
	Providers []Provider `json:"providers"`
}

// New returns a Config for the given plugins, tried in order. It returns an error if a provider has no name or no
// command, or if a name repeats.
func New(providers []Provider) (*Config, error) {
	c := &Config{Providers: append([]Provider(nil), providers...)}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// NewFromFile reads an access-provider file (JSON or YAML, unknown fields rejected) and returns its validated
// Config.
func NewFromFile(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading access-provider file: %w", err)
	}
	var c Config
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, fmt.Errorf("parsing access-provider file %s: %w", path, err)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("access-provider file %s: %w", path, err)
	}
	return &c, nil
}

// Validate returns an error if a provider has no name or no command, or if a name repeats.
func (c *Config) Validate() error {
	seen := map[string]bool{}
	for i, p := range c.Providers {
		if p.Name == "" {
			return fmt.Errorf("access provider %d has no name", i)
		}
		if p.ExecConfig.Command == "" {
			return fmt.Errorf("access provider %q has no execConfig.command", p.Name)
		}
		if seen[p.Name] {
			return fmt.Errorf("access provider %q appears twice", p.Name)
		}
		seen[p.Name] = true
	}
	return nil
}

// ProviderNames returns the names of the access-provider types, in order.
func (c *Config) ProviderNames() []string {
	names := make([]string, 0, len(c.Providers))
	for _, p := range c.Providers {
		names = append(names, p.Name)
	}
	return names
}
