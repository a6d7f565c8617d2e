// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
)

// The fuzz target of the provider's parser of user input: the kubeconfig in a Secret. Its seed corpus is in
// testdata/fuzz; run it for longer with
//
//	go test -run '^$' -fuzz '^FuzzDesiredFrom$' -fuzztime 5m .

// fuzzCredential matches a credential field of a kubeconfig and its value, in YAML or JSON.
var fuzzCredential = regexp.MustCompile(`(token|password|client-key-data|client-certificate-data|id-token|refresh-token|client-secret|access-token)["']?\s*:\s*["']?([^"'\s,}\]]+)`)

// Whatever a Secret holds under the key (and beside it), reading it never panics; it yields either the target of a
// cluster (a config the default KubeconfigPolicy allows: no exec plugin, no auth-provider, no file, TLS verified;
// and a reference to the Secret that carries none of its data) or an error that names the Secret and the key, has
// one of the documented reasons (a refusal of the policy also names the option that would allow it), and shows none
// of the Secret's credentials.
func FuzzDesiredFrom(f *testing.F) {
	p := New(Options{Namespace: "fleet"})
	f.Fuzz(func(t *testing.T, kubeconfig []byte, other []byte) {
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "east"},
			Data:       map[string][]byte{DefaultKubeconfigSecretKey: kubeconfig, "other": other},
		}
		target, err := p.targetFrom(secret)
		if err == nil {
			ref, ok := target.Object.(*corev1.Secret)
			if target.Config == nil || !ok {
				t.Fatalf("no error and target %+v", target)
			}
			if ref.Name != "east" || ref.Data != nil {
				t.Fatalf("the target keeps more of the Secret than a reference: %+v", ref)
			}
			if err := (clusters.KubeconfigPolicy{}).CheckRESTConfig(target.Config); err != nil {
				t.Fatalf("the default policy let through: %v", err)
			}
			return
		}
		var serr *secretError
		if !errors.As(err, &serr) {
			t.Fatalf("error %v is not a secretError", err)
		}
		if serr.reason != ReasonKubeconfigMissing && serr.reason != ReasonInvalidKubeconfig {
			t.Fatalf("reason %q", serr.reason)
		}
		msg := err.Error()
		if !strings.Contains(msg, "fleet/east") || !strings.Contains(msg, `"`+DefaultKubeconfigSecretKey+`"`) {
			t.Fatalf("error %q does not name the Secret and the key", msg)
		}
		if errors.Is(err, clusters.ErrKubeconfigRefused) && !strings.Contains(msg, "(set KubeconfigPolicy.") {
			t.Fatalf("the refusal %q does not name the option that would allow it", msg)
		}
		for _, data := range [][]byte{kubeconfig, other} {
			for _, m := range fuzzCredential.FindAllSubmatch(data, -1) {
				if v := string(m[2]); redactable(v) && strings.Contains(msg, v) {
					t.Fatalf("error %q shows the credential %q", msg, v)
				}
			}
		}
	})
}

// redactable reports whether redact promises to hide v: a run of credential characters long enough, and not a
// plain lowercase name.
func redactable(v string) bool {
	if len(v) < redactMinLength || isPlainName(v) {
		return false
	}
	for _, r := range v {
		if !isCredentialRune(r) {
			return false
		}
	}
	return true
}

// A RESTOptions function's error is reported like a malformed kubeconfig, redacted the same way.
func TestRESTOptionsErrorRedacted(t *testing.T) {
	const token = "Zm9vYmFyLXNlY3JldC10b2tlbi0wMTIz"
	p := New(Options{Namespace: "fleet", RESTOptions: []func(*rest.Config) error{func(cfg *rest.Config) error {
		return errors.New("rejected token " + cfg.BearerToken)
	}}})
	kubeconfig := []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: u, user: {token: ` + token + `}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`)
	_, err := p.targetFrom(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "east"},
		Data:       map[string][]byte{DefaultKubeconfigSecretKey: kubeconfig},
	})
	if err == nil || strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("got %v; want an error with the token redacted", err)
	}
}
