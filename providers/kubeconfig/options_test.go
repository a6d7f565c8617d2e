// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

func TestDefaultNamespace(t *testing.T) {
	env := func(vars map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	}
	file := func(content string) func(string) ([]byte, error) {
		return func(path string) ([]byte, error) {
			if path != ServiceAccountNamespaceFile || content == "" {
				return nil, fs.ErrNotExist
			}
			return []byte(content), nil
		}
	}
	for _, tc := range []struct {
		name     string
		env      map[string]string
		file     string
		expected string
	}{
		{"POD_NAMESPACE wins", map[string]string{PodNamespaceEnv: "from-env"}, "from-file\n", "from-env"},
		{"service account file", nil, "from-file\n", "from-file"},
		{"blank POD_NAMESPACE falls through", map[string]string{PodNamespaceEnv: "  "}, "from-file", "from-file"},
		{"nothing: default", nil, "", DefaultNamespace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (Options{}).completeWith(env(tc.env), file(tc.file)).Namespace; got != tc.expected {
				t.Errorf("got %q, want %q", got, tc.expected)
			}
		})
	}
	if got := (Options{Namespace: "set"}).completeWith(env(map[string]string{PodNamespaceEnv: "x"}), file("y")).Namespace; got != "set" {
		t.Errorf("an explicit namespace was replaced by %q", got)
	}
}

func TestOptionsDefaults(t *testing.T) {
	o := Options{}.completeWith(func(string) (string, bool) { return "", false },
		func(string) ([]byte, error) { return nil, fs.ErrNotExist })
	if o.KubeconfigSecretLabel != DefaultKubeconfigSecretLabel || o.KubeconfigSecretKey != DefaultKubeconfigSecretKey ||
		o.WaitCacheTimeout != clusters.DefaultWaitCacheTimeout || o.Namespace != DefaultNamespace {
		t.Errorf("defaults not applied: %+v", o)
	}
	o = Options{KubeconfigSecretLabel: "l", KubeconfigSecretKey: "k", WaitCacheTimeout: time.Second, Namespace: "n"}.complete()
	if o.KubeconfigSecretLabel != "l" || o.KubeconfigSecretKey != "k" || o.WaitCacheTimeout != time.Second || o.Namespace != "n" {
		t.Errorf("explicit options replaced: %+v", o)
	}
}

func TestRedact(t *testing.T) {
	data := map[string][]byte{"kubeconfig": []byte("token: sEcReT-t0ken.value_123\ncertificate-authority-data: abc\n")}
	for _, tc := range []struct{ in, want string }{
		{"context was not found: sEcReT-t0ken.value_123", "context was not found: [redacted]"},
		{`"sEcReT-t0ken.value_123" and more`, `"[redacted]" and more`},
		{"bad certificate-authority-data field", "bad certificate-authority-data field"}, // a field name stays
		{"short sEcReT stays", "short sEcReT stays"},
		{"NotInTheSecret1234567890", "NotInTheSecret1234567890"},
		{"", ""},
	} {
		if got := redact(tc.in, data); got != tc.want {
			t.Errorf("redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Errors of engaging a cluster have its config's credentials redacted by clusters.Engager (see its tests).
}

func testKubeconfig(t *testing.T) []byte {
	return harness.TokenKubeconfig(t, "https://example.invalid:6443", nil, "t0ken-ABCDEFGHIJKLMNOPQRSTUVWXYZ")
}

// A Secret's target: its kubeconfig's config, adjusted by RESTOptions in order, a reference to the Secret that
// carries its identity only, and words naming the Secret and the key; the same kubeconfig gives an equal config,
// which the engager leaves alone. Bad Secrets give errors with a documented reason.
func TestTargetFrom(t *testing.T) {
	secret := func(data map[string][]byte) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", UID: "u"}, Data: data}
	}
	p := New(Options{Namespace: "ns", RESTOptions: []func(*rest.Config) error{
		func(cfg *rest.Config) error { cfg.QPS = 42; return nil },
		func(cfg *rest.Config) error { cfg.Burst = int(cfg.QPS) * 2; return nil }, // runs after the first
	}})
	good := testKubeconfig(t)

	target, err := p.targetFrom(secret(map[string][]byte{"kubeconfig": good}))
	if err != nil {
		t.Fatal(err)
	}
	cfg := target.Config
	if cfg.Host != "https://example.invalid:6443" || cfg.QPS != 42 || cfg.Burst != 84 {
		t.Errorf("config not read or adjusted in order: host %s, QPS %v, burst %d", cfg.Host, cfg.QPS, cfg.Burst)
	}
	if ref := target.Object.(*corev1.Secret); ref.Name != "s" || ref.Namespace != "ns" || ref.UID != "u" || ref.Data != nil {
		t.Errorf("the Event reference should carry the Secret's identity only: %+v", ref)
	}
	if target.Source != `key "kubeconfig" of Secret ns/s` {
		t.Errorf("Source = %q", target.Source)
	}
	again, _ := p.targetFrom(secret(map[string][]byte{"kubeconfig": good}))
	if !clusters.EqualConfigs(again.Config, cfg) {
		t.Error("the same kubeconfig gave another config")
	}

	for _, tc := range []struct {
		name   string
		p      *Provider
		data   map[string][]byte
		reason string
		msg    string
	}{
		{"no key", p, map[string][]byte{"other": good}, ReasonKubeconfigMissing, `Secret ns/s has no key "kubeconfig"`},
		{"empty key", p, map[string][]byte{"kubeconfig": nil}, ReasonKubeconfigMissing, `Secret ns/s has an empty key "kubeconfig"`},
		{"malformed", p, map[string][]byte{"kubeconfig": []byte("::: nope")}, ReasonInvalidKubeconfig, `key "kubeconfig" of Secret ns/s does not hold a valid kubeconfig`},
		{"custom key", New(Options{Namespace: "ns", KubeconfigSecretKey: "cfg"}), map[string][]byte{"kubeconfig": good}, ReasonKubeconfigMissing, `has no key "cfg"`},
		{"RESTOptions error", New(Options{Namespace: "ns", RESTOptions: []func(*rest.Config) error{
			func(*rest.Config) error { return errors.New("no thanks") },
		}}), map[string][]byte{"kubeconfig": good}, ReasonInvalidKubeconfig, `key "kubeconfig" of Secret ns/s: RESTOptions[0] rejected the kubeconfig: no thanks`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.p.targetFrom(secret(tc.data))
			var serr *secretError
			if !errors.As(err, &serr) || serr.reason != tc.reason || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("got %v, want a %s error containing %q", err, tc.reason, tc.msg)
			}
		})
	}
}

func TestQuietContextDropsBodies(t *testing.T) {
	var lines []string
	logger := funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: 10})
	ctx := quietContext(klog.NewContext(t.Context(), logger))
	quiet := klog.FromContext(ctx).WithName("n").WithValues("k", "v")
	quiet.V(bodyLogVerbosity - 1).Info("kept")
	quiet.V(bodyLogVerbosity).Info("dropped body")
	quiet.WithCallDepth(1).V(9).Info("dropped too")
	quiet.Error(errors.New("e"), "error kept")
	if quiet.V(bodyLogVerbosity).Enabled() {
		t.Error("V(8) reported enabled")
	}
	joined := strings.Join(lines, "\n")
	if len(lines) != 2 || !strings.Contains(joined, "kept") || !strings.Contains(joined, "error kept") ||
		!strings.Contains(joined, `"k"="v"`) {
		t.Errorf("got lines %q", lines)
	}
	if quietContext(logr.NewContext(t.Context(), logr.Discard())) == nil {
		t.Error("nil context")
	}
}
