// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const secretToken = "s3cr3t-t0ken-abcdefghijklmnop"

func TestParseKubeconfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fleet.kubeconfig")
	// Validation opens certificate files: the CA must exist.
	if err := os.MkdirAll(filepath.Join(dir, "certs"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "certs", "ca.crt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	data := []byte(`apiVersion: v1
kind: Config
clusters:
- name: one
  cluster:
    server: https://one.example:6443
    certificate-authority: certs/ca.crt
- name: two
  cluster:
    server: https://two.example:6443
users:
- name: admin
  user:
    token: ` + secretToken + `
contexts:
- name: ctx-one
  context: {cluster: one, user: admin}
- name: ctx-two
  context: {cluster: two, user: admin, namespace: ns}
- name: broken
  context: {cluster: missing, user: admin}
current-context: ctx-one
`)
	configs, contextErrs, err := parseKubeconfig(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(configs) != 2 {
		t.Fatalf("got %d configs, want 2 (ctx-one, ctx-two); context errors: %v", len(configs), contextErrs)
	}
	if got := configs["ctx-one"].Host; got != "https://one.example:6443" {
		t.Errorf("ctx-one host %q", got)
	}
	if got, want := configs["ctx-one"].CAFile, filepath.Join(dir, "certs/ca.crt"); got != want {
		t.Errorf("ctx-one CA file %q, want %q (relative to the kubeconfig)", got, want)
	}
	if got := configs["ctx-two"].Host; got != "https://two.example:6443" {
		t.Errorf("ctx-two host %q", got)
	}
	if configs["ctx-two"].BearerToken != secretToken {
		t.Errorf("ctx-two has no token")
	}
	cerr := contextErrs["broken"]
	if cerr == nil || len(contextErrs) != 1 {
		t.Fatalf("context errors %v, want one for context broken", contextErrs)
	}
	if msg := cerr.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, `"broken"`) || strings.Contains(msg, secretToken) {
		t.Errorf("context error %q should name the file and the context, and no credential", msg)
	}
}

// A malformed file yields an error that names the file and never shows a credential, whichever way it is broken.
func TestParseKubeconfigMalformedHidesCredentials(t *testing.T) {
	path := "/fleet/bad.kubeconfig"
	for name, data := range map[string]string{
		"not yaml":   "users:\n- name: admin\n  user:\n    token: " + secretToken + "\n  : [\n",
		"wrong type": "users: \"token: " + secretToken + "\"\n",
		"map key":    "users:\n- name: admin\n  user:\n    ? {token: " + secretToken + "}\n    : x\n",
		"bad json":   `{"users": [{"name": "admin", "user": {"token": "` + secretToken + `"}}], "contexts": 5}`,
		"bad base64": "users:\n- name: admin\n  user:\n    client-key-data: " + secretToken + "!!\n    token: " + secretToken + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := parseKubeconfig(path, []byte(data), nil)
			if err == nil {
				t.Fatal("parsed")
			}
			msg := err.Error()
			t.Log(msg)
			if !strings.Contains(msg, path) {
				t.Errorf("error %q does not name the file", msg)
			}
			if strings.Contains(msg, secretToken) || strings.Contains(msg, "s3cr3t") {
				t.Errorf("error %q shows a credential", msg)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	data := []byte("token: " + secretToken + "\npassword: 'hunter22'\n\"client-key-data\": \"QUJDREVGR0g=\"\n")
	err := redact(os.ErrInvalid, data)
	if err != os.ErrInvalid { //nolint:errorlint // identity: nothing to redact leaves the error as it is
		t.Errorf("error without credentials was changed: %v", err)
	}
	err = redact(&os.PathError{Op: "parse", Path: "x " + secretToken + " hunter22 QUJDREVGR0g= y", Err: os.ErrInvalid}, data)
	if got, want := err.Error(), "parse x [redacted] [redacted] [redacted] y: invalid argument"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
