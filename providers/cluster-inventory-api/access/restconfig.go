package access

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"

	clusterinventoryv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/v1alpha1"
)

// ExecExtensionName is the name of the cluster extension that client-go hands to exec plugins, with the rest of
// the cluster's details, in KUBERNETES_EXEC_INFO.
const ExecExtensionName = "client.authentication.k8s.io/exec"

// BuildConfigFromCP returns a rest.Config reaching the cluster of clp with the first plugin of c (in c's order)
// whose type the profile offers in status.accessProviders or, for profiles written against the older API, in
// status.credentialProviders; an entry of accessProviders wins over one of the same type in credentialProviders.
// The returned error names the profile and, where one matched, the provider type; it never contains credentials.
// The plugin itself runs only when the config is used.
func (c *Config) BuildConfigFromCP(clp *clusterinventoryv1alpha1.ClusterProfile) (*rest.Config, error) {
	profile := clp.Namespace + "/" + clp.Name
	for _, p := range c.Providers {
		entry, ok := offered(clp, p.Name)
		if !ok {
			continue
		}
		cfg, err := buildConfig(entry, p)
		if err != nil {
			return nil, fmt.Errorf("cluster profile %s: access provider %q: %w", profile, p.Name, err)
		}
		return cfg, nil
	}
	names := make([]string, 0, len(clp.Status.AccessProviders)+len(clp.Status.CredentialProviders))
	for _, list := range [][]clusterinventoryv1alpha1.CredentialProvider{clp.Status.AccessProviders, clp.Status.CredentialProviders} {
		for _, e := range list {
			names = append(names, e.Name)
		}
	}
	return nil, fmt.Errorf("cluster profile %s: none of its access providers [%s] is configured (configured: [%s])",
		profile, strings.Join(names, ", "), strings.Join(c.ProviderNames(), ", "))
}

// offered returns the profile's entry of the given type, from accessProviders or else credentialProviders.
func offered(clp *clusterinventoryv1alpha1.ClusterProfile, name string) (clusterinventoryv1alpha1.CredentialProvider, bool) {
	for _, list := range [][]clusterinventoryv1alpha1.CredentialProvider{clp.Status.AccessProviders, clp.Status.CredentialProviders} {
		for _, e := range list {
			if e.Name == name {
				return e, true
			}
		}
	}
	return clusterinventoryv1alpha1.CredentialProvider{}, false
}

// buildConfig builds the rest.Config of one access-provider entry with its plugin.
func buildConfig(entry clusterinventoryv1alpha1.CredentialProvider, p Provider) (*rest.Config, error) {
	if p.ExecConfig.Command == "" {
		return nil, errors.New("the plugin has no execConfig.command")
	}
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
		if ext.Name == ExecExtensionName {
			exec.Config = &runtime.Unknown{Raw: ext.Extension.Raw, ContentType: runtime.ContentTypeJSON}
		}
	}
	cfg.ExecProvider = exec
	return cfg, nil
}
