package credentials

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"sigs.k8s.io/yaml"

	clusterinventoryv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/v1alpha1"
)

// DefaultProviderFile is the conventional name of the credential-provider file, as in the reference tooling's
// --clusterprofile-provider-file flag.
const DefaultProviderFile = "clusterprofile-provider-file.json"

// execExtensionName is the cluster extension that client-go hands to exec plugins with the cluster info.
const execExtensionName = "client.authentication.k8s.io/exec"

// Provider maps one credential-provider type to an exec credential plugin.
type Provider struct {
	// Name is the credential-provider type, as in a ClusterProfile's status.credentialProviders[].name.
	Name string `json:"name"`
	// ExecConfig is the client-go exec plugin configuration (the schema of a kubeconfig user's "exec").
	ExecConfig clientcmdv1.ExecConfig `json:"execConfig"`
}

// File is the credential-provider file.
type File struct {
	Providers []Provider `json:"providers"`
}

// CredentialsProvider builds rest.Configs for ClusterProfiles from credential plugins. Create it with New or
// NewFromFile; it is safe for concurrent use.
type CredentialsProvider struct { //nolint:revive // the name of the reference library's type, kept for compatibility
	providers []Provider
}

// New returns a CredentialsProvider for the given plugins, tried in order. It returns an error if a provider has
// no name or no command, or if a name repeats.
func New(providers []Provider) (*CredentialsProvider, error) {
	seen := map[string]bool{}
	for i, p := range providers {
		if p.Name == "" {
			return nil, fmt.Errorf("credential provider %d has no name", i)
		}
		if p.ExecConfig.Command == "" {
			return nil, fmt.Errorf("credential provider %q has no execConfig.command", p.Name)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("credential provider %q appears twice", p.Name)
		}
		seen[p.Name] = true
	}
	return &CredentialsProvider{providers: append([]Provider(nil), providers...)}, nil
}

// NewFromFile reads a credential-provider file (JSON or YAML) and returns a CredentialsProvider for it.
func NewFromFile(path string) (*CredentialsProvider, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading credential-provider file: %w", err)
	}
	var f File
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return nil, fmt.Errorf("parsing credential-provider file %s: %w", path, err)
	}
	cp, err := New(f.Providers)
	if err != nil {
		return nil, fmt.Errorf("credential-provider file %s: %w", path, err)
	}
	return cp, nil
}

// ProviderNames returns the names of the credential-provider types, in order.
func (c *CredentialsProvider) ProviderNames() []string {
	names := make([]string, 0, len(c.providers))
	for _, p := range c.providers {
		names = append(names, p.Name)
	}
	return names
}

// BuildConfigFromCP returns a rest.Config reaching the cluster of clp with the first plugin whose type the profile
// lists in status.credentialProviders (or status.accessProviders, when that is the one set). The returned error
// names the profile and, where one matched, the provider type; it never contains credentials.
func (c *CredentialsProvider) BuildConfigFromCP(clp *clusterinventoryv1alpha1.ClusterProfile) (*rest.Config, error) {
	profile := clp.Namespace + "/" + clp.Name
	entries := clp.Status.CredentialProviders
	if len(entries) == 0 {
		entries = clp.Status.AccessProviders
	}
	for _, p := range c.providers {
		for _, entry := range entries {
			if entry.Name != p.Name {
				continue
			}
			cfg, err := buildConfig(entry, p)
			if err != nil {
				return nil, fmt.Errorf("cluster profile %s: credential provider %q: %w", profile, p.Name, err)
			}
			return cfg, nil
		}
	}
	offered := make([]string, 0, len(entries))
	for _, e := range entries {
		offered = append(offered, e.Name)
	}
	return nil, fmt.Errorf("cluster profile %s: none of its credential providers [%s] is configured (configured: [%s])",
		profile, strings.Join(offered, ", "), strings.Join(c.ProviderNames(), ", "))
}

// buildConfig builds the rest.Config of one credential-provider entry with its plugin.
func buildConfig(entry clusterinventoryv1alpha1.CredentialProvider, p Provider) (*rest.Config, error) {
	if len(entry.Cluster.Raw) == 0 {
		return nil, errors.New("the profile gives no cluster for it")
	}
	var cl clientcmdv1.Cluster
	if err := json.Unmarshal(entry.Cluster.Raw, &cl); err != nil {
		return nil, fmt.Errorf("the profile's cluster entry is malformed: %w", err)
	}
	if cl.Server == "" {
		return nil, errors.New("the profile's cluster entry has no server")
	}
	cfg := &rest.Config{
		Host: cl.Server,
		TLSClientConfig: rest.TLSClientConfig{
			CAData:     cl.CertificateAuthorityData,
			ServerName: cl.TLSServerName,
			Insecure:   cl.InsecureSkipTLSVerify,
		},
		DisableCompression: cl.DisableCompression,
	}
	if cl.ProxyURL != "" {
		u, err := url.Parse(cl.ProxyURL)
		if err != nil {
			return nil, fmt.Errorf("the profile's proxy-url is malformed: %w", err)
		}
		cfg.Proxy = http.ProxyURL(u)
	}
	exec := &clientcmdapi.ExecConfig{
		Command:            p.ExecConfig.Command,
		Args:               append([]string(nil), p.ExecConfig.Args...),
		APIVersion:         p.ExecConfig.APIVersion,
		InstallHint:        p.ExecConfig.InstallHint,
		ProvideClusterInfo: p.ExecConfig.ProvideClusterInfo,
		InteractiveMode:    clientcmdapi.NeverExecInteractiveMode,
	}
	for _, env := range p.ExecConfig.Env {
		exec.Env = append(exec.Env, clientcmdapi.ExecEnvVar{Name: env.Name, Value: env.Value})
	}
	for _, ext := range cl.Extensions {
		if ext.Name == execExtensionName {
			exec.Config = &runtime.Unknown{Raw: ext.Extension.Raw, ContentType: runtime.ContentTypeJSON}
		}
	}
	cfg.ExecProvider = exec
	return cfg, nil
}
