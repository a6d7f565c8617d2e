// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package argocd_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/multicluster-runtime/examples/argocd"
)

const token = "a-bearer-token-that-must-not-show"

// A cluster Secret written by ClusterSecret reads back as the config it was written from.
func TestClusterSecretRoundTrip(t *testing.T) {
	for _, cfg := range []*rest.Config{
		{Host: "https://east.example:6443", BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca")}},
		{Host: "https://west.example:6443", TLSClientConfig: rest.TLSClientConfig{CertData: []byte("cert"), KeyData: []byte("key"), ServerName: "west"}},
		{Host: "https://lab.example:6443", Username: "admin", Password: "pw", TLSClientConfig: rest.TLSClientConfig{Insecure: true}},
	} {
		secret, err := argocd.ClusterSecret("argocd", "c", cfg)
		if err != nil {
			t.Fatal(err)
		}
		if secret.Labels[argocd.SecretTypeLabel] != argocd.SecretTypeCluster {
			t.Errorf("%s: labels %v, want the cluster Secret label", cfg.Host, secret.Labels)
		}
		got, err := argocd.RESTConfig(secret)
		if err != nil {
			t.Fatalf("%s: %v", cfg.Host, err)
		}
		if got.String() != cfg.String() || string(got.CertData) != string(cfg.CertData) || got.BearerToken != cfg.BearerToken {
			t.Errorf("read back %s, want %s", got, cfg)
		}
	}
	if _, err := argocd.ClusterSecret("argocd", "c", &rest.Config{Host: "https://x", BearerTokenFile: "/token"}); err == nil {
		t.Error("a config with a token file gave a Secret without its token; want an error")
	}
}

// A Secret Argo CD wrote by hand (stringData, base64 CA as Argo CD documents it) is read.
func TestRESTConfigOfArgoCDSecret(t *testing.T) {
	secret := &corev1.Secret{Data: map[string][]byte{
		"name":   []byte("mycluster.example.com"),
		"server": []byte("https://mycluster.example.com"),
		"config": []byte(`{"bearerToken": "` + token + `", "tlsClientConfig": {"insecure": false, "caData": "Y2EtZGF0YQ=="}}`),
	}}
	cfg, err := argocd.RESTConfig(secret)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://mycluster.example.com" || cfg.BearerToken != token || string(cfg.CAData) != "ca-data" {
		t.Errorf("config %s (CA %q), want the server, the token and the decoded CA", cfg, cfg.CAData)
	}
}

// Secrets that are no cluster config are errors naming the Secret, and no error shows the Secret's data.
func TestRESTConfigErrors(t *testing.T) {
	for name, data := range map[string]map[string][]byte{
		"no-server": {"config": []byte(`{"bearerToken": "` + token + `"}`)},
		"no-config": {"server": []byte("https://x")},
		"truncated": {"server": []byte("https://x"), "config": []byte(`{"bearerToken": "` + token + `"`)},
		"not-json":  {"server": []byte("https://x"), "config": []byte(token)},
		"bad-ca":    {"server": []byte("https://x"), "config": []byte(`{"tlsClientConfig": {"caData": "` + token + `!"}}`)},
		"exec":      {"server": []byte("https://x"), "config": []byte(`{"execProviderConfig": {"command": "argocd-k8s-auth", "env": {"TOKEN": "` + token + `"}}}`)},
		"aws":       {"server": []byte("https://x"), "config": []byte(`{"awsAuthConfig": {"clusterName": "c", "roleARN": "` + token + `"}}`)},
	} {
		secret := &corev1.Secret{Data: data}
		secret.Namespace, secret.Name = "argocd", name
		_, err := argocd.RESTConfig(secret)
		switch {
		case err == nil:
			t.Errorf("%s: no error", name)
		case !strings.Contains(err.Error(), "argocd/"+name):
			t.Errorf("%s: the error %q does not name the Secret", name, err)
		case strings.Contains(err.Error(), token[:8]):
			t.Errorf("%s: the error %q shows the Secret's data", name, err)
		}
	}
}
