// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package access

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
)

// ExecExtensionName is the name of the cluster extension that client-go hands to exec plugins, with the rest of
// the cluster's details, in KUBERNETES_EXEC_INFO.
const ExecExtensionName = "client.authentication.k8s.io/exec"

// BuildConfigFromCP returns a rest.Config reaching the cluster of clp with the first plugin of c (in c's order)
// whose type the profile offers in status.accessProviders or, for profiles written against the older API, in
// status.credentialProviders; an entry of accessProviders wins over one of the same type in credentialProviders.
//
// The config is what c.BuildConfigFromCP (the published method) builds for that entry — server, CA, the plugin with
// interactive mode Never, the exec extension, the arguments and environment variables the profile adds where the
// provider's policies allow — completed with what the published method leaves out: the entry's tls-server-name,
// insecure-skip-tls-verify and disable-compression, and its proxy-url only when one is set (a malformed one is an
// error now rather than at the first request). The plugin's environment is sorted by name, so that equal inputs
// give equal configs. Unlike the published method, it does not change c (which it reads only), logs nothing, and
// returns an error for an entry without a server (which client-go would take for localhost).
//
// The returned error names the profile and, where one matched, the provider type; it never contains credentials.
// The plugin itself runs only when the config is used.
func BuildConfigFromCP(c *Config, clp *clusterinventoryv1alpha1.ClusterProfile) (*rest.Config, error) {
	profile := clp.Namespace + "/" + clp.Name
	if err := Validate(c); err != nil {
		return nil, fmt.Errorf("cluster profile %s: %w", profile, err)
	}
	for _, p := range c.Providers {
		entry, ok := offered(clp, p.Name)
		if !ok {
			continue
		}
		cfg, err := buildConfig(clp, entry, p)
		if err != nil {
			return nil, fmt.Errorf("cluster profile %s: access provider %q: %w", profile, p.Name, err)
		}
		return cfg, nil
	}
	names := make([]string, 0, len(clp.Status.AccessProviders)+len(clp.Status.CredentialProviders))
	for _, list := range [][]clusterinventoryv1alpha1.AccessProvider{clp.Status.AccessProviders, clp.Status.CredentialProviders} {
		for _, e := range list {
			names = append(names, e.Name)
		}
	}
	return nil, fmt.Errorf("cluster profile %s: none of its access providers [%s] is configured (configured: [%s])",
		profile, strings.Join(names, ", "), strings.Join(ProviderNames(c), ", "))
}

// offered returns the profile's entry of the given type, from accessProviders or else credentialProviders.
func offered(clp *clusterinventoryv1alpha1.ClusterProfile, name string) (*clusterinventoryv1alpha1.AccessProvider, bool) {
	for _, list := range [][]clusterinventoryv1alpha1.AccessProvider{clp.Status.AccessProviders, clp.Status.CredentialProviders} {
		for i := range list {
			if list[i].Name == name {
				return &list[i], true
			}
		}
	}
	return nil, false
}

// buildConfig builds the rest.Config of one access-provider entry with its plugin: the published method, given a
// Config of that plugin alone (a copy) and a profile offering that entry alone, then completed.
func buildConfig(clp *clusterinventoryv1alpha1.ClusterProfile, entry *clusterinventoryv1alpha1.AccessProvider, p Provider) (*rest.Config, error) {
	cl := entry.Cluster
	if cl.Server == "" {
		return nil, errors.New("the profile's cluster entry has no server")
	}
	var proxy func(*http.Request) (*url.URL, error)
	if cl.ProxyURL != "" {
		u, err := url.Parse(cl.ProxyURL)
		if err != nil {
			// Not wrapped: url's error quotes the URL, which may hold a user and password.
			return nil, errors.New("the profile's proxy-url is malformed")
		}
		proxy = http.ProxyURL(u)
	}

	only := &clusterinventoryv1alpha1.ClusterProfile{
		ObjectMeta: metav1.ObjectMeta{Namespace: clp.Namespace, Name: clp.Name},
		Status:     clusterinventoryv1alpha1.ClusterProfileStatus{AccessProviders: []clusterinventoryv1alpha1.AccessProvider{*entry.DeepCopy()}},
	}
	one := &Config{Providers: []Provider{copyProvider(p)}}
	cfg, err := one.BuildConfigFromCP(only)
	if err != nil {
		return nil, err
	}
	cfg.ServerName = cl.TLSServerName
	cfg.Insecure = cl.InsecureSkipTLSVerify
	cfg.DisableCompression = cl.DisableCompression
	cfg.Proxy = proxy
	slices.SortStableFunc(cfg.ExecProvider.Env, func(a, b clientcmdapi.ExecEnvVar) int { return cmp.Compare(a.Name, b.Name) })
	return cfg, nil
}
