// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
)

// policyKubeconfig has a context that uses nothing a policy judges ("plain"), one with an exec plugin ("exec") and
// one with a token file named relative to the kubeconfig ("file").
const policyKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://c.example:6443"}
users:
- name: plain
  user: {token: ` + secretToken + `}
- name: exec
  user: {exec: {command: /usr/local/bin/get-token, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never}}
- name: file
  user: {tokenFile: tokens/c}
contexts:
- {name: plain, context: {cluster: c, user: plain}}
- {name: exec, context: {cluster: c, user: exec}}
- {name: file, context: {cluster: c, user: file}}
current-context: plain
`

// Without a policy every field of the operator's files is honoured, as before; with one, each context is judged on
// its own (a refused context does not take the others with it), after relative paths were resolved against the
// file's directory; the error names the file, the context, the field and the option.
func TestParseKubeconfigUnderPolicy(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fleet.kubeconfig")
	tokenFile := filepath.Join(dir, "tokens", "c")
	if err := os.MkdirAll(filepath.Dir(tokenFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tokenFile, []byte("token-from-file"), 0o600); err != nil {
		t.Fatal(err)
	}

	configs, contextErrs, err := parseKubeconfig(path, []byte(policyKubeconfig), nil)
	if err != nil || len(contextErrs) != 0 || len(configs) != 3 {
		t.Fatalf("no policy: %d configs, context errors %v, error %v; want all three", len(configs), contextErrs, err)
	}

	configs, contextErrs, err = parseKubeconfig(path, []byte(policyKubeconfig), &clusters.KubeconfigPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	if len(configs) != 1 || configs["plain"] == nil || configs["plain"].BearerToken != secretToken {
		t.Errorf("the zero policy kept %v, want only plain", configs)
	}
	for context, field := range map[string]string{"exec": "exec", "file": "tokenFile"} {
		err := contextErrs[context]
		if !errors.Is(err, clusters.ErrKubeconfigRefused) {
			t.Errorf("context %s: got %v, want a refusal", context, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, `"`+context+`"`) || !strings.Contains(msg, field) ||
			strings.Contains(msg, tokenFile) || strings.Contains(msg, "/usr/local/bin/get-token") {
			t.Errorf("context %s: the error %q should name the file, the context and %s, and no value", context, msg, field)
		}
	}

	configs, contextErrs, err = parseKubeconfig(path, []byte(policyKubeconfig), &clusters.KubeconfigPolicy{
		AllowLocalFiles: true,
		ExecPlugins:     &clientcmdapi.PluginPolicy{PolicyType: clientcmdapi.PluginPolicyAllowlist, Allowlist: []clientcmdapi.AllowlistEntry{{Command: "/usr/local/bin/get-token"}}},
	})
	if err != nil || len(contextErrs) != 0 {
		t.Fatalf("allowed: context errors %v, error %v", contextErrs, err)
	}
	if got := configs["file"]; got.BearerTokenFile != tokenFile || got.BearerToken != "token-from-file" {
		t.Errorf("the relative token file was not resolved against the file's directory: %q", got.BearerTokenFile)
	}
	if got := configs["exec"].ExecProvider; got == nil || got.PluginPolicy.PolicyType != clientcmdapi.PluginPolicyAllowlist {
		t.Errorf("the allowed plugin does not carry the policy: %v", got)
	}
}

// A misconfigured policy is an error of New.
func TestNewRejectsAnInvalidPolicy(t *testing.T) {
	_, err := New(Options{
		KubeconfigFiles:  []string{filepath.Join(t.TempDir(), "kubeconfig")},
		KubeconfigPolicy: &clusters.KubeconfigPolicy{ExecPlugins: &clientcmdapi.PluginPolicy{PolicyType: clientcmdapi.PluginPolicyAllowlist}},
	})
	if err == nil || !strings.Contains(err.Error(), "KubeconfigPolicy.ExecPlugins") {
		t.Errorf("got %v, want an error naming KubeconfigPolicy.ExecPlugins", err)
	}
}
