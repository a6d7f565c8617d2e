// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

//go:build unix

package clusters_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fifo makes a named pipe: opening it for reading blocks until someone opens it for writing, so a kubeconfig
// naming it shows whether a file was opened.
func fifo(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	return path
}

// Refusal is decided before any file is opened: every path of the kubeconfig is a named pipe, which the call would
// block on forever had it opened one. With AllowLocalFiles, client-go does open them while building the config (the
// test feeds the pipe to let it go on), which is why the order matters.
func TestKubeconfigPolicyReadsNothingBeforeRefusing(t *testing.T) {
	token, cert, key, ca := fifo(t, "token"), fifo(t, "cert"), fifo(t, "key"), fifo(t, "ca")
	data := testKubeconfig(t, func(c *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
		c.CertificateAuthorityData, c.CertificateAuthority = nil, ca
		u.Token, u.TokenFile, u.ClientCertificate, u.ClientKey = "", token, cert, key
	})
	if _, err := clusters.RESTConfigFromKubeconfig(data, clusters.KubeconfigPolicy{}); !errors.Is(err, clusters.ErrKubeconfigRefused) {
		t.Fatalf("got %v, want a refusal", err)
	}

	// The control: allowed, the CA file is opened.
	data = testKubeconfig(t, func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) {
		c.CertificateAuthorityData, c.CertificateAuthority = nil, ca
	})
	var wg sync.WaitGroup
	wg.Go(func() {
		_, _ = clusters.RESTConfigFromKubeconfig(data, clusters.KubeconfigPolicy{AllowLocalFiles: true})
	})
	w, err := os.OpenFile(ca, os.O_WRONLY, 0) // returns once the call opened the pipe for reading
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
}

// credentialPlugin writes an exec credential plugin that creates marker when it runs and returns token.
func credentialPlugin(t *testing.T, dir, name, marker, token string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	script := "#!/bin/sh\ntouch '" + marker + "'\n" +
		`echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"` + token + `"}}'` + "\n"
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil { //nolint:gosec // an executable for the test
		t.Fatal(err)
	}
	return path
}

// get makes one request with cfg.
func get(t *testing.T, cfg *rest.Config) error {
	t.Helper()
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, cfg.Host+"/version", http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// An allowed plugin runs when the config is used and its credential is sent; client-go enforces the policy too: a
// config whose command is changed after the check (to one the allowlist does not name) runs nothing. The zero
// policy refuses the kubeconfig, and its plugin never runs.
func TestKubeconfigPolicyExecPluginUnderClientGoPolicy(t *testing.T) {
	dir := t.TempDir()
	allowedMarker, otherMarker := filepath.Join(dir, "allowed-ran"), filepath.Join(dir, "other-ran")
	allowed := credentialPlugin(t, dir, "allowed", allowedMarker, "plugin-token")
	other := credentialPlugin(t, dir, "other", otherMarker, "other-token")
	srv := harness.NewAuthorizationRecorder(t)
	data := testKubeconfig(t, func(c *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
		c.Server, c.CertificateAuthorityData = srv.URL, srv.CAData()
		u.Token, u.Exec = "", execConfig(allowed)
	})

	if _, err := clusters.RESTConfigFromKubeconfig(data, clusters.KubeconfigPolicy{}); !errors.Is(err, clusters.ErrKubeconfigRefused) {
		t.Fatalf("the zero policy: got %v, want a refusal", err)
	}
	if exists(allowedMarker) {
		t.Fatal("the zero policy ran the plugin")
	}

	policy := clusters.KubeconfigPolicy{ExecPlugins: allowlist(allowed)}
	tampered, err := clusters.RESTConfigFromKubeconfig(data, policy)
	if err != nil {
		t.Fatal(err)
	}
	tampered.ExecProvider.Command = other
	if err := get(t, tampered); err == nil || !strings.Contains(err.Error(), "allowlist") {
		t.Errorf("a command the allowlist does not name: got %v, want client-go's refusal", err)
	}
	if exists(otherMarker) {
		t.Error("client-go ran a plugin the allowlist does not name")
	}

	cfg, err := clusters.RESTConfigFromKubeconfig(data, policy)
	if err != nil {
		t.Fatal(err)
	}
	if err := get(t, cfg); err != nil {
		t.Fatal(err)
	}
	if !exists(allowedMarker) {
		t.Error("the allowed plugin did not run")
	}
	if got := srv.Authorizations(); len(got) != 1 || got[0] != "Bearer plugin-token" {
		t.Errorf("the server saw %q, want the plugin's token once", got)
	}
}
