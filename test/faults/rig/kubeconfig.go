// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package rig

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Auth says how a kubeconfig authenticates; set one field.
type Auth struct {
	// Token is a bearer token.
	Token string
	// CertOf names the control plane whose admin client certificate and key are used.
	CertOf string
	// Exec runs the rig's credential plugin with these environment variables (PLUGIN_TOKEN, PLUGIN_FAIL,
	// PLUGIN_HANG).
	Exec map[string]string
}

// Kubeconfig returns a kubeconfig with one context, contextName, reaching the API server of the control plane
// endpointOf with the CA of that control plane and auth.
func (r *Rig) Kubeconfig(contextName, endpointOf string, auth Auth) ([]byte, error) {
	cfg, err := r.Fleet.Config(endpointOf)
	if err != nil {
		return nil, err
	}
	user := &clientcmdapi.AuthInfo{}
	switch {
	case auth.Token != "":
		user.Token = auth.Token
	case auth.CertOf != "":
		certCfg, err := r.Fleet.Config(auth.CertOf)
		if err != nil {
			return nil, err
		}
		user.ClientCertificateData, user.ClientKeyData = certCfg.CertData, certCfg.KeyData
	case auth.Exec != nil:
		exec := &clientcmdapi.ExecConfig{
			Command:         r.Plugin,
			APIVersion:      "client.authentication.k8s.io/v1",
			InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
		}
		for k, v := range auth.Exec {
			exec.Env = append(exec.Env, clientcmdapi.ExecEnvVar{Name: k, Value: v})
		}
		user.Exec = exec
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters[contextName] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos[contextName] = user
	kc.Contexts[contextName] = &clientcmdapi.Context{Cluster: contextName, AuthInfo: contextName}
	kc.CurrentContext = contextName
	data, err := clientcmd.Write(*kc)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig for %s: %w", contextName, err)
	}
	return data, nil
}

// KubeconfigPath is the path of the file provider's kubeconfig file for a member.
func (r *Rig) KubeconfigPath(member string) string {
	return filepath.Join(r.KubeconfigDir, member+".kubeconfig")
}

// FileClusterName is the file provider's name of the cluster of a member's file (context named after the member).
func (r *Rig) FileClusterName(member string) multicluster.ClusterName {
	return multicluster.ClusterName(r.KubeconfigPath(member) + "+" + member)
}

// WriteFile writes data to a member's kubeconfig file atomically (a temporary file renamed over it), as editors,
// kubectl and Kubernetes volumes do.
func (r *Rig) WriteFile(member string, data []byte) error {
	return WriteAtomic(r.KubeconfigPath(member), data)
}

// WriteAtomic writes data to a temporary file in path's directory, under a name no glob matches, and renames it
// over path.
func WriteAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
