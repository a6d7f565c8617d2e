// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"net/url"
	"strconv"
	"unicode/utf8"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// useKind is something a kubeconfig can make the controller do that a KubeconfigPolicy decides on.
type useKind int

const (
	useExec         useKind = iota // run a credential plugin; value is its command
	useAuthProvider                // run an auth-provider plugin
	useFile                        // read a file; value is its path
	useInsecureTLS                 // skip the verification of the server's certificate
	usePlainHTTP                   // talk to the server without TLS
)

// use is one thing a kubeconfig (or a rest.Config) makes the controller do, and the field that says so.
type use struct {
	kind  useKind
	entry string // the kubeconfig entry (`user "admin"`), or "rest.Config"
	field string // the field, as the kubeconfig (or rest.Config) spells it
	value string // the command or path; never shown
}

// authProviderFileKeys are the keys of auth-provider configurations, of the plugins client-go ships or shipped,
// whose values are paths the plugin reads.
var authProviderFileKeys = []string{"idp-certificate-authority"}

// entries are the parts of a kubeconfig a context uses, copied: what client-go's ClientConfig reads for it.
type entries struct {
	clusterName, userName string
	context               *clientcmdapi.Context
	cluster               *clientcmdapi.Cluster
	user                  *clientcmdapi.AuthInfo
}

// usedEntries finds the entries the named context uses, as client-go does: a missing context (or the empty name
// with no such context) refers to the cluster and the user of the empty name.
func usedEntries(config *clientcmdapi.Config, contextName string) *entries {
	e := &entries{}
	if c := config.Contexts[contextName]; c != nil {
		e.context = c.DeepCopy()
		e.clusterName, e.userName = c.Cluster, c.AuthInfo
	}
	if c := config.Clusters[e.clusterName]; c != nil {
		e.cluster = c.DeepCopy()
	}
	if u := config.AuthInfos[e.userName]; u != nil {
		e.user = u.DeepCopy()
	}
	return e
}

// config returns a kubeconfig holding only the entries: nothing else of the original can be used.
func (e *entries) config(contextName string) clientcmdapi.Config {
	c := clientcmdapi.NewConfig()
	c.CurrentContext = contextName
	if e.context != nil {
		c.Contexts[contextName] = e.context
	}
	if e.cluster != nil {
		c.Clusters[e.clusterName] = e.cluster
	}
	if e.user != nil {
		c.AuthInfos[e.userName] = e.user
	}
	return *c
}

// kubeconfigUses lists what the entries make the controller do, with the kubeconfig's field names.
func (e *entries) kubeconfigUses() []use {
	var out []use
	add := func(kind useKind, entry, field, value string) {
		out = append(out, use{kind: kind, entry: entry, field: field, value: value})
	}
	tls := rest.TLSClientConfig{}
	if c := e.cluster; c != nil {
		entry := "cluster " + quoteName(e.clusterName)
		if c.CertificateAuthority != "" {
			add(useFile, entry, "certificate-authority", c.CertificateAuthority)
		}
		if c.InsecureSkipTLSVerify {
			add(useInsecureTLS, entry, "insecure-skip-tls-verify", "")
		}
		tls.CAData, tls.CAFile, tls.Insecure = c.CertificateAuthorityData, c.CertificateAuthority, c.InsecureSkipTLSVerify
	}
	if u := e.user; u != nil {
		entry := "user " + quoteName(e.userName)
		for _, f := range []struct{ field, path string }{
			{"tokenFile", u.TokenFile}, {"client-certificate", u.ClientCertificate}, {"client-key", u.ClientKey},
		} {
			if f.path != "" {
				add(useFile, entry, f.field, f.path)
			}
		}
		if u.Exec != nil {
			add(useExec, entry, "exec", u.Exec.Command)
		}
		if u.AuthProvider != nil {
			add(useAuthProvider, entry, "auth-provider", "")
			for _, key := range authProviderFileKeys {
				if path := u.AuthProvider.Config[key]; path != "" {
					add(useFile, entry, "auth-provider.config."+key, path)
				}
			}
		}
		tls.CertData, tls.CertFile = u.ClientCertificateData, u.ClientCertificate
	}
	if e.cluster != nil && e.cluster.Server != "" && !rest.IsConfigTransportTLS(rest.Config{Host: e.cluster.Server, TLSClientConfig: tls}) {
		add(usePlainHTTP, "cluster "+quoteName(e.clusterName), "server", "")
	}
	return out
}

// restConfigUses lists what cfg makes the controller do, with rest.Config's field names.
func restConfigUses(cfg *rest.Config) []use {
	const entry = "rest.Config"
	var out []use
	add := func(kind useKind, field, value string) {
		out = append(out, use{kind: kind, entry: entry, field: field, value: value})
	}
	for _, f := range []struct{ field, path string }{
		{"BearerTokenFile", cfg.BearerTokenFile}, {"CertFile", cfg.CertFile}, {"KeyFile", cfg.KeyFile}, {"CAFile", cfg.CAFile},
	} {
		if f.path != "" {
			add(useFile, f.field, f.path)
		}
	}
	if cfg.ExecProvider != nil {
		add(useExec, "ExecProvider", cfg.ExecProvider.Command)
	}
	if cfg.AuthProvider != nil {
		add(useAuthProvider, "AuthProvider", "")
		for _, key := range authProviderFileKeys {
			if path := cfg.AuthProvider.Config[key]; path != "" {
				add(useFile, "AuthProvider.Config."+key, path)
			}
		}
	}
	if cfg.Insecure {
		add(useInsecureTLS, "Insecure", "")
	}
	if cfg.Host != "" && !rest.IsConfigTransportTLS(*cfg) {
		add(usePlainHTTP, "Host", "")
	}
	return out
}

// secrets returns the values of the entries that are credentials, or may hold some, for scrub.
func (e *entries) secrets() []string {
	var out []string
	if c := e.cluster; c != nil {
		out = append(out, c.ProxyURL, userInfo(c.ProxyURL), userInfo(c.Server))
	}
	if u := e.user; u != nil {
		out = append(out, u.Token, u.Password, string(u.ClientKeyData), string(u.ClientCertificateData))
		if u.AuthProvider != nil {
			for _, v := range u.AuthProvider.Config {
				out = append(out, v)
			}
		}
		if u.Exec != nil {
			out = append(out, u.Exec.Args...)
			for _, env := range u.Exec.Env {
				out = append(out, env.Value)
			}
		}
	}
	return out
}

// userInfo returns the user information (user:password) of a URL, if it parses and has some.
func userInfo(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.User == nil {
		return ""
	}
	return u.User.String()
}

// maxNameInMessage bounds how much of an entry's name an error shows.
const maxNameInMessage = 63

// quoteName quotes a kubeconfig entry's name for an error message, cut to maxNameInMessage bytes: the name is the
// kubeconfig author's text.
func quoteName(name string) string {
	if len(name) > maxNameInMessage {
		cut := maxNameInMessage
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut] + "..."
	}
	return strconv.Quote(name)
}
