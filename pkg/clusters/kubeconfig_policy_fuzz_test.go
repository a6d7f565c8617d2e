// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
)

// The fuzz target of the policy that guards kubeconfigs read from the API. Its seed corpus is in testdata/fuzz; run
// it for longer with
//
//	go test -run '^$' -fuzz '^FuzzRESTConfigFromKubeconfig$' -fuzztime 5m .

// Bits of the fuzzer's allow byte, each an option of the policy.
const (
	allowExec = 1 << iota
	allowAuthProviders
	allowLocalFiles
	allowInsecureTLS
)

func policyOf(allow uint8) clusters.KubeconfigPolicy {
	p := clusters.KubeconfigPolicy{
		AllowAuthProviders: allow&allowAuthProviders != 0,
		AllowLocalFiles:    allow&allowLocalFiles != 0,
		AllowInsecureTLS:   allow&allowInsecureTLS != 0,
	}
	if allow&allowExec != 0 {
		p.ExecPlugins = allowAll()
	}
	return p
}

// fuzzCredential matches a credential field of a kubeconfig and its value, in YAML or JSON.
var fuzzCredential = regexp.MustCompile(`(token|password|client-key-data|client-certificate-data|id-token|refresh-token|client-secret|access-token)["']?\s*:\s*["']?([^"'\s,}\]]+)`)

// Whatever the bytes and the policy, RESTConfigFromKubeconfig never panics, and the config it returns has nothing
// the policy does not allow: with the zero policy no exec plugin, no auth-provider, no file, TLS verification on
// and no plain HTTP. A refusal names the option that would allow it; no error shows a credential of the bytes.
func FuzzRESTConfigFromKubeconfig(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, allow uint8) {
		policy := policyOf(allow)
		cfg, err := clusters.RESTConfigFromKubeconfig(data, policy)
		if err != nil {
			if cfg != nil {
				t.Fatalf("a config and an error: %v", err)
			}
			var refused *clusters.KubeconfigRefusedError
			if errors.As(err, &refused) {
				for _, r := range refused.Refusals {
					if r.Option != "" && !strings.Contains(err.Error(), "KubeconfigPolicy."+r.Option) {
						t.Fatalf("the error %q does not name the option of %+v", err, r)
					}
				}
			}
			checkShowsNoCredential(t, err.Error(), data)
			return
		}
		checkWithinPolicy(t, cfg, policy)
	})
}

// checkWithinPolicy fails the test if cfg carries something policy does not allow.
func checkWithinPolicy(t *testing.T, cfg *rest.Config, policy clusters.KubeconfigPolicy) {
	t.Helper()
	if e := cfg.ExecProvider; e != nil {
		if policy.ExecPlugins == nil || e.PluginPolicy.PolicyType != clientcmdapi.PluginPolicyAllowAll || !e.StdinUnavailable {
			t.Fatalf("exec plugin %s under the policy %+v", e, policy)
		}
	}
	if cfg.AuthProvider != nil && !policy.AllowAuthProviders {
		t.Fatalf("auth-provider %s under the policy %+v", cfg.AuthProvider, policy)
	}
	for _, path := range []string{cfg.BearerTokenFile, cfg.CertFile, cfg.KeyFile, cfg.CAFile} {
		if path != "" && (!policy.AllowLocalFiles || !filepath.IsAbs(path)) {
			t.Fatalf("file %q under the policy %+v", path, policy)
		}
	}
	if !policy.AllowInsecureTLS && (cfg.Insecure || !rest.IsConfigTransportTLS(*cfg)) {
		t.Fatalf("insecure %t, TLS %t under the policy %+v", cfg.Insecure, rest.IsConfigTransportTLS(*cfg), policy)
	}
}

// checkShowsNoCredential fails the test if msg shows a credential value of data: one that is long enough to be
// told from the words of a message (8 characters), a single word, and not shaped like a field name.
func checkShowsNoCredential(t *testing.T, msg string, data []byte) {
	t.Helper()
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(msg, isSeparator) {
		words[w] = true
	}
	for _, m := range fuzzCredential.FindAllSubmatch(data, -1) {
		v := string(m[2])
		if len(v) >= 8 && strings.IndexFunc(v, isSeparator) < 0 && !isFieldName(v) && words[v] {
			t.Fatalf("the error %q shows the credential %q", msg, v)
		}
	}
}

func isSeparator(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("\"'`()[]{}<>,;:", r)
}

// isFieldName reports whether s could be one of the kubeconfig's field names, which messages name: letters and
// dashes only. Credentials of the shape of a field name are left to the unit tests.
func isFieldName(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r != '-' && !unicode.IsLetter(r) }) < 0
}
