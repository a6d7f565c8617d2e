// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"net"
	"net/http"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
)

func baseConfig() *rest.Config {
	return &rest.Config{
		Host:        "https://10.0.0.1:6443",
		APIPath:     "/api",
		BearerToken: "token",
		TLSClientConfig: rest.TLSClientConfig{
			CAData:   []byte("ca"),
			CertData: []byte("cert"),
			KeyData:  []byte("key"),
		},
		Impersonate: rest.ImpersonationConfig{UserName: "alice", Groups: []string{"admins"}},
		ExecProvider: &clientcmdapi.ExecConfig{
			Command:    "get-token",
			Args:       []string{"--cluster", "a"},
			APIVersion: "client.authentication.k8s.io/v1",
		},
		QPS:     20,
		Burst:   30,
		Timeout: time.Minute,
	}
}

func TestEqualConfigs(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*rest.Config)
		want   bool
	}{
		{name: "identical copies", modify: func(*rest.Config) {}, want: true},
		{name: "host", modify: func(c *rest.Config) { c.Host = "https://10.0.0.2:6443" }},
		{name: "API path", modify: func(c *rest.Config) { c.APIPath = "/apis" }},
		{name: "token", modify: func(c *rest.Config) { c.BearerToken = "other" }},
		{name: "token file", modify: func(c *rest.Config) { c.BearerTokenFile = "/var/run/token" }},
		{name: "username", modify: func(c *rest.Config) { c.Username = "bob" }},
		{name: "password", modify: func(c *rest.Config) { c.Password = "secret" }},
		{name: "CA data", modify: func(c *rest.Config) { c.CAData = []byte("other-ca") }},
		{name: "cert data", modify: func(c *rest.Config) { c.CertData = []byte("other-cert") }},
		{name: "key data", modify: func(c *rest.Config) { c.KeyData = []byte("other-key") }},
		{name: "insecure", modify: func(c *rest.Config) { c.Insecure = true }},
		{name: "server name", modify: func(c *rest.Config) { c.ServerName = "kubernetes" }},
		{name: "impersonated user", modify: func(c *rest.Config) { c.Impersonate.UserName = "bob" }},
		{name: "impersonated groups", modify: func(c *rest.Config) { c.Impersonate.Groups = []string{"viewers"} }},
		{name: "exec command", modify: func(c *rest.Config) { c.ExecProvider.Command = "other-token" }},
		{name: "exec args", modify: func(c *rest.Config) { c.ExecProvider.Args = []string{"--cluster", "b"} }},
		{name: "exec provider removed", modify: func(c *rest.Config) { c.ExecProvider = nil }},
		{name: "auth provider", modify: func(c *rest.Config) { c.AuthProvider = &clientcmdapi.AuthProviderConfig{Name: "oidc"} }},
		{name: "QPS", modify: func(c *rest.Config) { c.QPS = 50 }},
		{name: "burst", modify: func(c *rest.Config) { c.Burst = 100 }},
		{name: "timeout", modify: func(c *rest.Config) { c.Timeout = time.Second }},
		{name: "user agent", modify: func(c *rest.Config) { c.UserAgent = "other" }},
		{name: "content type", modify: func(c *rest.Config) { c.ContentType = "application/vnd.kubernetes.protobuf" }},
		{name: "proxy", modify: func(c *rest.Config) { c.Proxy = http.ProxyFromEnvironment }},
		// Function-valued fields are not compared.
		{name: "dialer", modify: func(c *rest.Config) { c.Dial = (&net.Dialer{}).DialContext }, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := baseConfig(), baseConfig()
			tt.modify(b)
			if got := clusters.EqualConfigs(a, b); got != tt.want {
				t.Errorf("EqualConfigs() = %v, want %v", got, tt.want)
			}
			if got := clusters.EqualConfigs(b, a); got != tt.want {
				t.Errorf("EqualConfigs() is not symmetric: %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEqualConfigsCopies(t *testing.T) {
	a := baseConfig()
	if !clusters.EqualConfigs(a, a) {
		t.Error("a config is not equal to itself")
	}
	if !clusters.EqualConfigs(a, rest.CopyConfig(a)) {
		t.Error("a config is not equal to its rest.CopyConfig")
	}
}

func TestEqualConfigsNil(t *testing.T) {
	tests := []struct {
		name string
		a, b *rest.Config
		want bool
	}{
		{name: "both nil", want: true},
		{name: "first nil", b: baseConfig()},
		{name: "second nil", a: baseConfig()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := clusters.EqualConfigs(tt.a, tt.b); got != tt.want {
				t.Errorf("EqualConfigs() = %v, want %v", got, tt.want)
			}
		})
	}
}
