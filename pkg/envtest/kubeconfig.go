// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"errors"
	"fmt"
	"os"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Kubeconfig returns a kubeconfig for the admin user of the named control plane (a member, or the host for
// HostName). It has one cluster, one user and one context, all three named after the control plane, and the
// context is current. The CA certificate and the client certificate and key are embedded as data, never as file
// paths, so the kubeconfig can be used from anywhere as long as the control plane runs, across API server restarts.
// It returns an error matching ErrMemberNotFound for unknown names.
func (f *Fleet) Kubeconfig(name string) ([]byte, error) {
	return f.MergedKubeconfig(name)
}

// MergedKubeconfig returns one kubeconfig for the admin users of several control planes (members, or the host for
// HostName), with a cluster, user and context per control plane, each named after it, as Kubeconfig builds them.
// The current context is the first name's. With no names it covers every member (not the host) in the order of
// Members; a fleet without members then yields an error.
func (f *Fleet) MergedKubeconfig(names ...string) ([]byte, error) {
	if len(names) == 0 {
		names = f.Members()
		if len(names) == 0 {
			return nil, errors.New("unable to build a kubeconfig: the fleet has no members")
		}
	}
	kubeconfig := clientcmdapi.NewConfig()
	for _, name := range names {
		cfg, err := f.Config(name)
		if err != nil {
			return nil, fmt.Errorf("unable to build a kubeconfig: %w", err)
		}
		addToKubeconfig(kubeconfig, name, cfg)
	}
	kubeconfig.CurrentContext = names[0]
	data, err := clientcmd.Write(*kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("unable to serialize the kubeconfig: %w", err)
	}
	return data, nil
}

// WriteKubeconfig writes MergedKubeconfig(names...) to path with mode 0600, for tools and code that read
// kubeconfig files (kubectl --kubeconfig, KUBECONFIG, clientcmd loading rules). It replaces an existing file.
func (f *Fleet) WriteKubeconfig(path string, names ...string) error {
	data, err := f.MergedKubeconfig(names...)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("unable to write the kubeconfig to %s: %w", path, err)
	}
	return nil
}

// addToKubeconfig adds a cluster, user and context named name for cfg to kubeconfig.
func addToKubeconfig(kubeconfig *clientcmdapi.Config, name string, cfg *rest.Config) {
	kubeconfig.Clusters[name] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthorityData: cfg.CAData,
	}
	kubeconfig.AuthInfos[name] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData,
		ClientKeyData:         cfg.KeyData,
		Token:                 cfg.BearerToken,
	}
	kubeconfig.Contexts[name] = &clientcmdapi.Context{
		Cluster:  name,
		AuthInfo: name,
	}
}
