// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package argocd

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// The label that marks Argo CD's cluster Secrets.
const (
	SecretTypeLabel   = "argocd.argoproj.io/secret-type"
	SecretTypeCluster = "cluster"
)

// clusterConfig is the part of a cluster Secret's "config" that the provider reads: Argo CD's field names.
type clusterConfig struct {
	Username        string `json:"username,omitempty"`
	Password        string `json:"password,omitempty"`
	BearerToken     string `json:"bearerToken,omitempty"`
	TLSClientConfig struct {
		Insecure   bool   `json:"insecure,omitempty"`
		ServerName string `json:"serverName,omitempty"`
		CAData     []byte `json:"caData,omitempty"`
		CertData   []byte `json:"certData,omitempty"`
		KeyData    []byte `json:"keyData,omitempty"`
	} `json:"tlsClientConfig"`
	// Set (not null) in a Secret whose credentials come from a plugin or from AWS: not supported here.
	ExecProviderConfig *json.RawMessage `json:"execProviderConfig,omitempty"`
	AWSAuthConfig      *json.RawMessage `json:"awsAuthConfig,omitempty"`
}

// RESTConfig returns the rest.Config of a cluster Secret: its "server", with the credentials and TLS settings of its
// "config". An error names the Secret and what is wrong, and shows none of its data.
func RESTConfig(secret *corev1.Secret) (*rest.Config, error) {
	server, raw := string(secret.Data["server"]), secret.Data["config"]
	if server == "" || len(raw) == 0 {
		return nil, fmt.Errorf("cluster Secret %s/%s: the keys \"server\" and \"config\" are required", secret.Namespace, secret.Name)
	}
	var c clusterConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("cluster Secret %s/%s: \"config\" is not a cluster config: %w", secret.Namespace, secret.Name, err)
	}
	if c.ExecProviderConfig != nil || c.AWSAuthConfig != nil {
		return nil, fmt.Errorf("cluster Secret %s/%s: execProviderConfig and awsAuthConfig are not supported", secret.Namespace, secret.Name)
	}
	tls := c.TLSClientConfig
	return &rest.Config{
		Host: server, Username: c.Username, Password: c.Password, BearerToken: c.BearerToken,
		TLSClientConfig: rest.TLSClientConfig{Insecure: tls.Insecure, ServerName: tls.ServerName, CAData: tls.CAData,
			CertData: tls.CertData, KeyData: tls.KeyData},
	}, nil
}

// ClusterSecret returns the cluster Secret namespace/name of the cluster cfg reaches, as Argo CD would store it, for
// tests and tools: its server, and its bearer token or basic credentials, client certificate and TLS settings
// (the credentials must be data: a config that reads them from files or runs a plugin is an error).
func ClusterSecret(namespace, name string, cfg *rest.Config) (*corev1.Secret, error) {
	if cfg.BearerTokenFile != "" || cfg.CertFile != "" || cfg.KeyFile != "" || cfg.CAFile != "" || cfg.ExecProvider != nil || cfg.AuthProvider != nil {
		return nil, fmt.Errorf("cluster %s: only credentials given as data can be stored in a cluster Secret", name)
	}
	var c clusterConfig
	c.Username, c.Password, c.BearerToken = cfg.Username, cfg.Password, cfg.BearerToken
	c.TLSClientConfig.Insecure, c.TLSClientConfig.ServerName = cfg.Insecure, cfg.ServerName
	c.TLSClientConfig.CAData, c.TLSClientConfig.CertData, c.TLSClientConfig.KeyData = cfg.CAData, cfg.CertData, cfg.KeyData
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", name, err)
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{SecretTypeLabel: SecretTypeCluster}},
		Data:       map[string][]byte{"name": []byte(name), "server": []byte(cfg.Host), "config": raw},
	}, nil
}
