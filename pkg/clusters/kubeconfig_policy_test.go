// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
)

const (
	testServer = "https://127.0.0.1:6443"
	testToken  = "s3cr3t-t0ken-never-shown"
)

// testKubeconfig returns a kubeconfig whose current context "x" uses cluster "c" (testServer, trusting a CA given
// inline) and user "u" (testToken), after change.
func testKubeconfig(t testing.TB, change func(c *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo)) []byte {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	c := &clientcmdapi.Cluster{Server: testServer, CertificateAuthorityData: []byte("not a real CA")}
	u := &clientcmdapi.AuthInfo{Token: testToken}
	if change != nil {
		change(c, u)
	}
	cfg.Clusters["c"], cfg.AuthInfos["u"] = c, u
	cfg.Contexts["x"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	cfg.CurrentContext = "x"
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// localFile writes a file in the test's directory and returns its absolute path.
func localFile(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func execConfig(command string) *clientcmdapi.ExecConfig {
	return &clientcmdapi.ExecConfig{
		Command: command, APIVersion: "client.authentication.k8s.io/v1", InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
		Args: []string{"--secret-arg=s3cr3t-arg"}, Env: []clientcmdapi.ExecEnvVar{{Name: "SECRET", Value: "s3cr3t-env"}},
	}
}

func allowAll() *clientcmdapi.PluginPolicy {
	return &clientcmdapi.PluginPolicy{PolicyType: clientcmdapi.PluginPolicyAllowAll}
}

func allowlist(commands ...string) *clientcmdapi.PluginPolicy {
	p := &clientcmdapi.PluginPolicy{PolicyType: clientcmdapi.PluginPolicyAllowlist}
	for _, c := range commands {
		p.Allowlist = append(p.Allowlist, clientcmdapi.AllowlistEntry{Command: c})
	}
	return p
}

// refusals returns "<entry>: <field> -> <option>" for each refusal of err, or fails the test if err is no refusal.
func refusals(t *testing.T, err error) []string {
	t.Helper()
	var refused *clusters.KubeconfigRefusedError
	if !errors.As(err, &refused) || !errors.Is(err, clusters.ErrKubeconfigRefused) {
		t.Fatalf("got %v, want a *KubeconfigRefusedError matching ErrKubeconfigRefused", err)
	}
	out := make([]string, 0, len(refused.Refusals))
	for _, r := range refused.Refusals {
		out = append(out, r.Entry+": "+r.Field+" -> "+r.Option)
		if !strings.Contains(err.Error(), r.Entry+": "+r.Field) {
			t.Errorf("the error %q does not name %s: %s", err, r.Entry, r.Field)
		}
		if r.Option != "" && !strings.Contains(err.Error(), "KubeconfigPolicy."+r.Option) {
			t.Errorf("the error %q does not name the option %s", err, r.Option)
		}
	}
	return out
}

// Every field that makes the controller run something, read a file or skip TLS verification is refused by the zero
// policy, with an error naming the field and the option that allows it and none of its value; with that option
// the kubeconfig is accepted and the rest.Config carries the field.
func TestKubeconfigPolicyFields(t *testing.T) {
	tokenFile := localFile(t, "token", "token-from-a-file")
	certFile := localFile(t, "cert", "cert")
	keyFile := localFile(t, "key", "key")
	caFile := localFile(t, "ca", "ca")
	plugin := "/usr/local/bin/fleet-credentials"

	for _, tc := range []struct {
		name    string
		change  func(c *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo)
		refused []string // by the zero policy
		allow   clusters.KubeconfigPolicy
		check   func(cfg *rest.Config) bool
		values  []string // must not appear in the refusal
	}{{
		name:    "tokenFile",
		change:  func(_ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) { u.Token, u.TokenFile = "", tokenFile },
		refused: []string{`user "u": tokenFile -> AllowLocalFiles`},
		allow:   clusters.KubeconfigPolicy{AllowLocalFiles: true},
		check: func(cfg *rest.Config) bool {
			return cfg.BearerTokenFile == tokenFile && cfg.BearerToken == "token-from-a-file"
		},
		values: []string{tokenFile},
	}, {
		name:    "tokenFile beside a token",
		change:  func(_ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) { u.TokenFile = tokenFile },
		refused: []string{`user "u": tokenFile -> AllowLocalFiles`},
		allow:   clusters.KubeconfigPolicy{AllowLocalFiles: true},
		check:   func(cfg *rest.Config) bool { return cfg.BearerTokenFile == tokenFile },
		values:  []string{tokenFile},
	}, {
		name: "client-certificate and client-key",
		change: func(_ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
			u.Token, u.ClientCertificate, u.ClientKey = "", certFile, keyFile
		},
		refused: []string{`user "u": client-certificate -> AllowLocalFiles`, `user "u": client-key -> AllowLocalFiles`},
		allow:   clusters.KubeconfigPolicy{AllowLocalFiles: true},
		check:   func(cfg *rest.Config) bool { return cfg.CertFile == certFile && cfg.KeyFile == keyFile },
		values:  []string{certFile, keyFile},
	}, {
		name: "client-key beside certificate data",
		change: func(_ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
			u.Token, u.ClientCertificateData, u.ClientKey = "", []byte("c"), keyFile
		},
		refused: []string{`user "u": client-key -> AllowLocalFiles`},
		allow:   clusters.KubeconfigPolicy{AllowLocalFiles: true},
		check:   func(cfg *rest.Config) bool { return cfg.KeyFile == keyFile },
		values:  []string{keyFile},
	}, {
		name: "certificate-authority",
		change: func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) {
			c.CertificateAuthorityData, c.CertificateAuthority = nil, caFile
		},
		refused: []string{`cluster "c": certificate-authority -> AllowLocalFiles`},
		allow:   clusters.KubeconfigPolicy{AllowLocalFiles: true},
		check:   func(cfg *rest.Config) bool { return cfg.CAFile == caFile },
		values:  []string{caFile},
	}, {
		name:    "exec plugin",
		change:  func(_ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) { u.Token, u.Exec = "", execConfig(plugin) },
		refused: []string{`user "u": exec -> ExecPlugins`},
		allow:   clusters.KubeconfigPolicy{ExecPlugins: allowAll()},
		check: func(cfg *rest.Config) bool {
			e := cfg.ExecProvider
			return e != nil && e.Command == plugin && e.PluginPolicy.PolicyType == clientcmdapi.PluginPolicyAllowAll && e.StdinUnavailable
		},
		values: []string{plugin, "s3cr3t-arg", "s3cr3t-env"},
	}, {
		name:    "exec plugin in the allowlist",
		change:  func(_ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) { u.Token, u.Exec = "", execConfig(plugin) },
		refused: []string{`user "u": exec -> ExecPlugins`},
		allow:   clusters.KubeconfigPolicy{ExecPlugins: allowlist("/bin/other", plugin)},
		check: func(cfg *rest.Config) bool {
			e := cfg.ExecProvider
			return e != nil && e.PluginPolicy.PolicyType == clientcmdapi.PluginPolicyAllowlist && len(e.PluginPolicy.Allowlist) == 2
		},
		values: []string{plugin},
	}, {
		name: "auth-provider",
		change: func(_ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
			u.Token, u.AuthProvider = "", &clientcmdapi.AuthProviderConfig{Name: "oidc"}
		},
		refused: []string{`user "u": auth-provider -> AllowAuthProviders`},
		allow:   clusters.KubeconfigPolicy{AllowAuthProviders: true},
		check:   func(cfg *rest.Config) bool { return cfg.AuthProvider != nil && cfg.AuthProvider.Name == "oidc" },
	}, {
		name: "auth-provider reading a file",
		change: func(_ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
			u.Token, u.AuthProvider = "", &clientcmdapi.AuthProviderConfig{Name: "oidc", Config: map[string]string{"idp-certificate-authority": caFile}}
		},
		refused: []string{`user "u": auth-provider -> AllowAuthProviders`, `user "u": auth-provider.config.idp-certificate-authority -> AllowLocalFiles`},
		allow:   clusters.KubeconfigPolicy{AllowAuthProviders: true, AllowLocalFiles: true},
		check:   func(cfg *rest.Config) bool { return cfg.AuthProvider != nil },
		values:  []string{caFile},
	}, {
		name: "insecure-skip-tls-verify",
		change: func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) {
			c.CertificateAuthorityData, c.InsecureSkipTLSVerify = nil, true
		},
		refused: []string{`cluster "c": insecure-skip-tls-verify -> AllowInsecureTLS`},
		allow:   clusters.KubeconfigPolicy{AllowInsecureTLS: true},
		check:   func(cfg *rest.Config) bool { return cfg.Insecure },
	}, {
		name: "plain HTTP",
		change: func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) {
			c.Server, c.CertificateAuthorityData = "http://127.0.0.1:8080", nil
		},
		refused: []string{`cluster "c": server -> AllowInsecureTLS`},
		allow:   clusters.KubeconfigPolicy{AllowInsecureTLS: true},
		check:   func(cfg *rest.Config) bool { return cfg.Host == "http://127.0.0.1:8080" },
		values:  []string{"127.0.0.1"},
	}, {
		name: "a server without scheme nor CA, which client-go reaches over HTTP",
		change: func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) {
			c.Server, c.CertificateAuthorityData = "127.0.0.1:8080", nil
		},
		refused: []string{`cluster "c": server -> AllowInsecureTLS`},
		allow:   clusters.KubeconfigPolicy{AllowInsecureTLS: true},
		check:   func(cfg *rest.Config) bool { return !rest.IsConfigTransportTLS(*cfg) },
	}} {
		t.Run(tc.name, func(t *testing.T) {
			data := testKubeconfig(t, tc.change)
			cfg, err := clusters.RESTConfigFromKubeconfig(data, clusters.KubeconfigPolicy{})
			if cfg != nil {
				t.Errorf("the zero policy returned a config: %+v", cfg)
			}
			if got := refusals(t, err); !slices.Equal(got, tc.refused) {
				t.Errorf("refused %q, want %q", got, tc.refused)
			}
			for _, v := range append(tc.values, testToken) {
				if strings.Contains(err.Error(), v) {
					t.Errorf("the error %q shows the value %q", err, v)
				}
			}

			cfg, err = clusters.RESTConfigFromKubeconfig(data, tc.allow)
			if err != nil {
				t.Fatalf("with %+v: %v", tc.allow, err)
			}
			if !tc.check(cfg) {
				t.Errorf("with %+v the config does not carry the field: %+v", tc.allow, cfg)
			}
		})
	}
}

// A kubeconfig with nothing to refuse is accepted by the zero policy as client-go would read it.
func TestKubeconfigPolicyAcceptsPlainKubeconfig(t *testing.T) {
	data := testKubeconfig(t, func(c *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
		c.TLSServerName, c.ProxyURL = "api.example", "http://proxy.example:3128"
		u.Impersonate = "alice"
	})
	got, err := clusters.RESTConfigFromKubeconfig(data, clusters.KubeconfigPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := clientcmd.RESTConfigFromKubeConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	if !clusters.EqualConfigs(got, want) || got.Proxy == nil || got.Impersonate.UserName != "alice" {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// Only the entries of the context used are judged, and only they reach the config; a missing current context
// refers to the entries of the empty name, as in client-go.
func TestKubeconfigPolicyJudgesTheContextUsed(t *testing.T) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: testServer, CertificateAuthorityData: []byte("ca")}
	cfg.Clusters["evil"] = &clientcmdapi.Cluster{Server: testServer, InsecureSkipTLSVerify: true}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: testToken}
	cfg.AuthInfos["evil"] = &clientcmdapi.AuthInfo{Exec: execConfig("/bin/sh"), TokenFile: "/etc/passwd"}
	cfg.Contexts["good"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	cfg.Contexts["evil"] = &clientcmdapi.Context{Cluster: "evil", AuthInfo: "evil"}
	cfg.CurrentContext = "good"

	got, err := clusters.RESTConfigForContext(cfg, "good", clusters.KubeconfigPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	if got.ExecProvider != nil || got.BearerTokenFile != "" || got.Insecure || got.BearerToken != testToken {
		t.Errorf("the config of the good context carries another's fields: %+v", got)
	}
	_, err = clusters.RESTConfigForContext(cfg, "evil", clusters.KubeconfigPolicy{})
	want := []string{`cluster "evil": insecure-skip-tls-verify -> AllowInsecureTLS`, `user "evil": tokenFile -> AllowLocalFiles`, `user "evil": exec -> ExecPlugins`}
	if got := refusals(t, err); !slices.Equal(got, want) {
		t.Errorf("refused %q, want %q", got, want)
	}
	if cfg.AuthInfos["evil"].Exec.PluginPolicy.PolicyType != "" {
		t.Error("the caller's config was modified")
	}

	// No current context: client-go uses the cluster and the user named "".
	cfg.CurrentContext = ""
	cfg.Clusters[""] = &clientcmdapi.Cluster{Server: testServer, CertificateAuthorityData: []byte("ca")}
	cfg.AuthInfos[""] = &clientcmdapi.AuthInfo{Exec: execConfig("/bin/sh")}
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = clusters.RESTConfigFromKubeconfig(data, clusters.KubeconfigPolicy{})
	if got := refusals(t, err); !slices.Equal(got, []string{`user "": exec -> ExecPlugins`}) {
		t.Errorf("refused %q", got)
	}
}

// Nothing is resolved against the working directory: relative paths are refused even when files are allowed, a
// relative command even when every plugin is, and LocationOfOrigin (never read from bytes) does not anchor them.
// A bare command is looked up in PATH, as client-go does.
func TestKubeconfigPolicyRelativePaths(t *testing.T) {
	all := clusters.KubeconfigPolicy{ExecPlugins: allowAll(), AllowLocalFiles: true}
	for _, tc := range []struct {
		name   string
		change func(c *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo)
		want   []string
	}{
		{"tokenFile", func(_ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) { u.TokenFile = "token" }, []string{`user "u": tokenFile -> `}},
		{"certificate-authority", func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) {
			c.CertificateAuthorityData, c.CertificateAuthority, c.LocationOfOrigin = nil, "../ca.crt", "/etc/fleet/kubeconfig"
		}, []string{`cluster "c": certificate-authority -> `}},
		{"exec command", func(_ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
			u.Token, u.Exec = "", execConfig("./bin/plugin")
		}, []string{`user "u": exec -> `}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := clientcmdapi.NewConfig()
			c := &clientcmdapi.Cluster{Server: testServer, CertificateAuthorityData: []byte("ca")}
			u := &clientcmdapi.AuthInfo{Token: testToken}
			tc.change(c, u)
			cfg.Clusters["c"], cfg.AuthInfos["u"] = c, u
			cfg.Contexts["x"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
			_, err := clusters.RESTConfigForContext(cfg, "x", all)
			if got := refusals(t, err); !slices.Equal(got, tc.want) {
				t.Errorf("refused %q, want %q", got, tc.want)
			}
			if !strings.Contains(err.Error(), "relative path") {
				t.Errorf("the error %q does not say the path is relative", err)
			}
		})
	}

	bare := testKubeconfig(t, func(_ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) { u.Token, u.Exec = "", execConfig("kubelogin") })
	if _, err := clusters.RESTConfigFromKubeconfig(bare, all); err != nil {
		t.Errorf("a command looked up in PATH: %v", err)
	}
	if _, err := clusters.RESTConfigFromKubeconfig(bare, clusters.KubeconfigPolicy{ExecPlugins: allowlist("/usr/bin/kubelogin")}); err == nil {
		t.Error("a bare command matched an allowlist entry of another spelling")
	}
}

// A misconfigured ExecPlugins is an error, whatever the kubeconfig holds.
func TestKubeconfigPolicyInvalidPluginPolicy(t *testing.T) {
	data := testKubeconfig(t, nil)
	for _, p := range []*clientcmdapi.PluginPolicy{
		{PolicyType: clientcmdapi.PluginPolicyAllowlist},
		{PolicyType: "Sometimes"},
		{PolicyType: clientcmdapi.PluginPolicyAllowAll, Allowlist: []clientcmdapi.AllowlistEntry{{Command: "/bin/x"}}},
	} {
		_, err := clusters.RESTConfigFromKubeconfig(data, clusters.KubeconfigPolicy{ExecPlugins: p})
		if err == nil || !strings.Contains(err.Error(), "KubeconfigPolicy.ExecPlugins") {
			t.Errorf("policy %+v: got %v", p, err)
		}
	}
}

// Errors that are not refusals, from parsing or from client-go's validation, show no credential even where
// client-go's message quotes the field.
func TestKubeconfigPolicyErrorsShowNoCredential(t *testing.T) {
	const password = "pr0xy-passw0rd-never-shown"
	for name, data := range map[string][]byte{
		"proxy-url with credentials and a bad scheme": testKubeconfig(t, func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) {
			c.ProxyURL = "ftp://admin:" + password + "@proxy.example"
		}),
		"two authentication methods": testKubeconfig(t, func(_ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
			u.Username, u.Password = "admin", password
		}),
		"a number where a string belongs": []byte("apiVersion: v1\nkind: Config\nusers: [{name: u, user: {token: 12345678901234567890}}]\n"),
		"garbage around a token":          []byte("current-context: [" + password),
	} {
		_, err := clusters.RESTConfigFromKubeconfig(data, clusters.KubeconfigPolicy{})
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		for _, secret := range []string{password, testToken, "12345678901234567890"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s: the error %q shows a credential", name, err)
			}
		}
	}
}

// The rest.Config of a provider that builds it itself is judged by its fields.
func TestCheckRESTConfig(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*rest.Config)
		want   []string
		allow  *clusters.KubeconfigPolicy // accepts the config; nil when none does
	}{
		{"nothing to refuse", func(*rest.Config) {}, nil, nil},
		{"token file", func(c *rest.Config) { c.BearerTokenFile = "/t" }, []string{"rest.Config: BearerTokenFile -> AllowLocalFiles"}, &clusters.KubeconfigPolicy{AllowLocalFiles: true}},
		{"certificate files", func(c *rest.Config) { c.CertFile, c.KeyFile, c.CAFile = "/c", "/k", "/ca" },
			[]string{"rest.Config: CertFile -> AllowLocalFiles", "rest.Config: KeyFile -> AllowLocalFiles", "rest.Config: CAFile -> AllowLocalFiles"},
			&clusters.KubeconfigPolicy{AllowLocalFiles: true}},
		{"exec", func(c *rest.Config) { c.ExecProvider = execConfig("/bin/p") },
			[]string{"rest.Config: ExecProvider -> ExecPlugins", "rest.Config: ExecProvider.PluginPolicy -> ExecPlugins"}, nil},
		{"exec with the policy's PluginPolicy", func(c *rest.Config) {
			c.ExecProvider = execConfig("/bin/p")
			c.ExecProvider.PluginPolicy = *allowlist("/bin/p")
		}, []string{"rest.Config: ExecProvider -> ExecPlugins", "rest.Config: ExecProvider.PluginPolicy -> ExecPlugins"},
			&clusters.KubeconfigPolicy{ExecPlugins: allowlist("/bin/p")}},
		{"auth provider", func(c *rest.Config) { c.AuthProvider = &clientcmdapi.AuthProviderConfig{Name: "oidc"} },
			[]string{"rest.Config: AuthProvider -> AllowAuthProviders"}, &clusters.KubeconfigPolicy{AllowAuthProviders: true}},
		{"insecure", func(c *rest.Config) { c.Insecure, c.CAData = true, nil }, []string{"rest.Config: Insecure -> AllowInsecureTLS"}, &clusters.KubeconfigPolicy{AllowInsecureTLS: true}},
		{"plain HTTP", func(c *rest.Config) { c.Host = "http://10.0.0.1" }, []string{"rest.Config: Host -> AllowInsecureTLS"}, &clusters.KubeconfigPolicy{AllowInsecureTLS: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &rest.Config{Host: testServer, BearerToken: testToken, TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca")}}
			tc.change(cfg)
			err := clusters.KubeconfigPolicy{}.CheckRESTConfig(cfg)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if got := refusals(t, err); !slices.Equal(got, tc.want) {
				t.Errorf("refused %q, want %q", got, tc.want)
			}
			if tc.allow == nil {
				return
			}
			if err := tc.allow.CheckRESTConfig(cfg); err != nil {
				t.Errorf("with %+v: %v", tc.allow, err)
			}
		})
	}
}
