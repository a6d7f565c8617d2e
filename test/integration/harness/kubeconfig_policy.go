// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package harness

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// PolicyCase is a kubeconfig that uses one thing a clusters.KubeconfigPolicy refuses by default, as an attacker
// who can write a Secret would: the tests of the providers store it where their provider reads kubeconfigs and
// check that the zero policy refuses it, naming Fields, and that Allow lets it through.
type PolicyCase struct {
	// Name names the case: "exec", "tokenFile", "file paths", "auth-provider", "insecure TLS".
	Name string
	// Kubeconfig is the kubeconfig: its current context reaches a member of the fleet, or Recorder.
	Kubeconfig []byte
	// Fields are the fields the zero policy's refusal names, as the kubeconfig spells them.
	Fields []string
	// Values are what those fields hold (paths, the auth-provider's configuration), which no report may show.
	Values []string
	// Allow is the policy with the one option that allows the case.
	Allow clusters.KubeconfigPolicy
	// Engages says whether, under Allow, the kubeconfig reaches a working member (so that its cluster is
	// engaged). The tokenFile case reaches Recorder instead, which is no API server.
	Engages bool
	// Happened reports whether the kubeconfig made the controller do what it asks: the exec plugin ran (it creates
	// a file), the token file's content reached the server it names, the auth-provider plugin was used. Nil when
	// being engaged is the proof.
	Happened func() bool
}

// PolicyCases returns one PolicyCase of each kind for member of fleet. Their files live in the test's temporary
// directory; the tokenFile case's server is a TLS server of the test that records every Authorization header
// (rec).
func PolicyCases(t testing.TB, fleet *mcenvtest.Fleet, member string) (cases []PolicyCase, rec *AuthorizationRecorder) {
	t.Helper()
	cfg := Config(t, fleet, member)
	dir := t.TempDir()
	write := func(name string, data []byte, mode os.FileMode) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	kubeconfig := func(change func(c *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo)) []byte {
		c := &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
		u := &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
		change(c, u)
		data, err := clientcmd.Write(clientcmdapi.Config{
			Clusters: map[string]*clientcmdapi.Cluster{"c": c}, AuthInfos: map[string]*clientcmdapi.AuthInfo{"u": u},
			Contexts: map[string]*clientcmdapi.Context{"x": {Cluster: "c", AuthInfo: "u"}}, CurrentContext: "x",
		})
		if err != nil {
			t.Fatal(err)
		}
		return data
	}

	// exec: a plugin that leaves a file behind and hands out the member's admin certificate.
	credential, err := json.Marshal(map[string]any{
		"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
		"status": map[string]string{"clientCertificateData": string(cfg.CertData), "clientKeyData": string(cfg.KeyData)},
	})
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "the-plugin-ran")
	plugin := write("plugin", []byte("#!/bin/sh\ntouch '"+marker+"'\ncat '"+write("credential.json", credential, 0o600)+"'\n"), 0o700)
	cases = append(cases, PolicyCase{
		Name: "exec",
		Kubeconfig: kubeconfig(func(_ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
			u.ClientCertificateData, u.ClientKeyData = nil, nil
			u.Exec = &clientcmdapi.ExecConfig{Command: plugin, APIVersion: "client.authentication.k8s.io/v1", InteractiveMode: clientcmdapi.NeverExecInteractiveMode}
		}),
		Fields:   []string{"exec"},
		Values:   []string{plugin},
		Allow:    clusters.KubeconfigPolicy{ExecPlugins: &clientcmdapi.PluginPolicy{PolicyType: clientcmdapi.PluginPolicyAllowlist, Allowlist: []clientcmdapi.AllowlistEntry{{Command: plugin}}}},
		Engages:  true,
		Happened: func() bool { _, err := os.Stat(marker); return err == nil },
	})

	// tokenFile: a file of the controller (standing for its service account token) sent to the Secret author's server.
	rec = NewAuthorizationRecorder(t)
	hostToken := "host-token-" + randomHex(t)
	tokenFile := write("token", []byte(hostToken), 0o600)
	cases = append(cases, PolicyCase{
		Name: "tokenFile",
		Kubeconfig: kubeconfig(func(c *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
			c.Server, c.CertificateAuthorityData = rec.URL, rec.CAData()
			u.ClientCertificateData, u.ClientKeyData, u.TokenFile = nil, nil, tokenFile
		}),
		Fields:   []string{"tokenFile"},
		Values:   []string{tokenFile, hostToken},
		Allow:    clusters.KubeconfigPolicy{AllowLocalFiles: true},
		Happened: func() bool { return slices.Contains(rec.Authorizations(), "Bearer "+hostToken) },
	})

	// client-key and certificate-authority: paths to the member's key and CA.
	keyFile, caFile := write("client.key", cfg.KeyData, 0o600), write("ca.crt", cfg.CAData, 0o600)
	cases = append(cases, PolicyCase{
		Name: "file paths",
		Kubeconfig: kubeconfig(func(c *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
			c.CertificateAuthorityData, c.CertificateAuthority = nil, caFile
			u.ClientKeyData, u.ClientKey = nil, keyFile
		}),
		Fields:  []string{"certificate-authority", "client-key"},
		Values:  []string{caFile, keyFile},
		Allow:   clusters.KubeconfigPolicy{AllowLocalFiles: true},
		Engages: true,
	})

	// auth-provider: a plugin registered in the test binary, beside the member's certificate.
	id := randomHex(t)
	cases = append(cases, PolicyCase{
		Name: "auth-provider",
		Kubeconfig: kubeconfig(func(_ *clientcmdapi.Cluster, u *clientcmdapi.AuthInfo) {
			u.AuthProvider = &clientcmdapi.AuthProviderConfig{Name: registerTestAuthProvider(t), Config: map[string]string{"id": id}}
		}),
		Fields:   []string{"auth-provider"},
		Values:   []string{id},
		Allow:    clusters.KubeconfigPolicy{AllowAuthProviders: true},
		Engages:  true,
		Happened: func() bool { return testAuthProviderUsed(id) },
	})

	// insecure-skip-tls-verify: the member, without verifying its certificate.
	cases = append(cases, PolicyCase{
		Name: "insecure TLS",
		Kubeconfig: kubeconfig(func(c *clientcmdapi.Cluster, _ *clientcmdapi.AuthInfo) {
			c.CertificateAuthorityData, c.InsecureSkipTLSVerify = nil, true
		}),
		Fields:  []string{"insecure-skip-tls-verify"},
		Allow:   clusters.KubeconfigPolicy{AllowInsecureTLS: true},
		Engages: true,
	})
	return cases, rec
}

// CheckRefused fails the test unless the refusal of c was reported and nothing c asks happened: note (of the
// Warning Event) and line (the log line) must both name what (the Secret or the object whose kubeconfig it is),
// every one of c's Fields and the KubeconfigPolicy option that allows them, and neither may show one of c's Values.
func (c PolicyCase) CheckRefused(t testing.TB, what, note, line string) {
	t.Helper()
	want := append([]string{what, "KubeconfigPolicy."}, c.Fields...)
	for _, report := range []struct{ kind, text string }{{"Event", note}, {"log line", line}} {
		for _, w := range want {
			if !strings.Contains(report.text, w) {
				t.Errorf("%s: the %s %q does not name %s", c.Name, report.kind, report.text, w)
			}
		}
		for _, v := range c.Values {
			if strings.Contains(report.text, v) {
				t.Errorf("%s: the %s %q shows the value %q", c.Name, report.kind, report.text, v)
			}
		}
	}
	if c.Happened != nil && c.Happened() {
		t.Errorf("%s: the kubeconfig was acted upon although refused", c.Name)
	}
}

// WaitForRefusal waits until notes (those of the Warning Events on the object whose kubeconfig was refused, what)
// include one that names a KubeconfigPolicy option, and returns it.
func WaitForRefusal(t testing.TB, what string, notes func() []string) string {
	t.Helper()
	var note string
	Eventually(t, 0, "a Warning Event on "+what+" naming a KubeconfigPolicy option", func() bool {
		for _, n := range notes() {
			if strings.Contains(n, "KubeconfigPolicy.") {
				note = n
				return true
			}
		}
		return false
	})
	return note
}

// CheckAllRefused checks a provider that was handed every case of PolicyCases beside a good cluster: it waits for
// each case's refusal and checks it (WaitForRefusal, CheckRefused), with refusal giving the name of the case's
// object and the notes of its Warning Events, and logLine the first log line that contains every one of its
// arguments; then it checks that rec was never reached and that engaged lists the good cluster only.
func CheckAllRefused(t testing.TB, cases []PolicyCase, rec *AuthorizationRecorder,
	refusal func(PolicyCase) (what string, notes func() []string), logLine func(substrings ...string) string,
	engaged func() []multicluster.ClusterName, good multicluster.ClusterName) {
	t.Helper()
	for _, c := range cases {
		what, notes := refusal(c)
		note := WaitForRefusal(t, what, notes)
		c.CheckRefused(t, what, note, logLine(what, "KubeconfigPolicy."))
	}
	rec.CheckUntouched(t)
	if got := engaged(); !slices.Equal(got, []multicluster.ClusterName{good}) {
		t.Errorf("engaged %v, want only %s", got, good)
	}
}

// CheckPolicyOptIns checks, for each of PolicyCases(fleet, member), that the option that allows it works: engage
// stores the case's kubeconfig where a provider built with c.Allow reads it and returns a condition that holds once
// the provider's cluster is reconciled; for a case that Engages, the condition must come to hold, and what the case
// asks (Happened) must happen.
func CheckPolicyOptIns(t *testing.T, fleet *mcenvtest.Fleet, member string, engage func(t *testing.T, c PolicyCase) (reconciled func() bool)) {
	t.Helper()
	cases, _ := PolicyCases(t, fleet, member)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			reconciled := engage(t, c)
			if c.Engages {
				Eventually(t, 0, "the cluster of "+c.Name+" reconciled", reconciled)
			}
			if c.Happened != nil {
				Eventually(t, 0, c.Name+" acted upon", c.Happened)
			}
		})
	}
}

func randomHex(t testing.TB) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// AuthorizationRecorder is a TLS server that records the Authorization header of every request and answers 401.
type AuthorizationRecorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

// NewAuthorizationRecorder starts an AuthorizationRecorder until the test ends.
func NewAuthorizationRecorder(t testing.TB) *AuthorizationRecorder {
	r := &AuthorizationRecorder{}
	r.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, req.Header.Get("Authorization"))
		r.mu.Unlock()
		http.Error(w, "recorded", http.StatusUnauthorized)
	}))
	t.Cleanup(r.Close)
	return r
}

// CAData returns the PEM of the certificate the server presents, for a kubeconfig that trusts it.
func (r *AuthorizationRecorder) CAData() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate().Raw})
}

// CheckUntouched fails the test if the server received any request.
func (r *AuthorizationRecorder) CheckUntouched(t testing.TB) {
	t.Helper()
	if got := r.Authorizations(); len(got) != 0 {
		t.Errorf("the server %s received %d requests", r.URL, len(got))
	}
}

// Authorizations returns the Authorization headers received so far, one per request.
func (r *AuthorizationRecorder) Authorizations() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

// The test auth-provider plugin: registered once per test binary, it records the "id" of every configuration it
// is built with and changes nothing else.
var testAuthProvider = struct {
	once sync.Once
	err  error
	mu   sync.Mutex
	used map[string]bool
}{used: map[string]bool{}}

const testAuthProviderName = "multicluster-runtime-test"

func registerTestAuthProvider(t testing.TB) string {
	t.Helper()
	testAuthProvider.once.Do(func() {
		testAuthProvider.err = rest.RegisterAuthProviderPlugin(testAuthProviderName,
			func(_ string, config map[string]string, _ rest.AuthProviderConfigPersister) (rest.AuthProvider, error) {
				testAuthProvider.mu.Lock()
				defer testAuthProvider.mu.Unlock()
				testAuthProvider.used[config["id"]] = true
				return testAuthProviderPlugin{}, nil
			})
	})
	if testAuthProvider.err != nil {
		t.Fatal(testAuthProvider.err)
	}
	return testAuthProviderName
}

func testAuthProviderUsed(id string) bool {
	testAuthProvider.mu.Lock()
	defer testAuthProvider.mu.Unlock()
	return testAuthProvider.used[id]
}

type testAuthProviderPlugin struct{}

func (testAuthProviderPlugin) WrapTransport(rt http.RoundTripper) http.RoundTripper { return rt }
func (testAuthProviderPlugin) Login() error                                         { return nil }
