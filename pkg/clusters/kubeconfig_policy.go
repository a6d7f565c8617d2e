// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"k8s.io/client-go/plugin/pkg/client/auth/exec"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// KubeconfigPolicy says what a kubeconfig read from the API (a Secret, a ClusterProfile) may make the controller do.
// The zero value is the safe default: no exec plugin runs, no auth-provider, no file of the controller's
// filesystem is read, TLS verification stays on.
//
// Whoever can write such a kubeconfig is usually a wider group than whoever can change the controller's
// Deployment. Without a policy, a kubeconfig can make the controller run any program in its container (an exec
// credential plugin), read any of its files and send their content to a server of the author's choosing
// (tokenFile, client-certificate, client-key, certificate-authority), run a legacy auth-provider plugin, or talk to
// a server it does not verify. Each field of the policy opts into one of these.
type KubeconfigPolicy struct {
	// ExecPlugins decides which exec credential plugins (users[].user.exec) may run. Nil means DenyAll: a
	// kubeconfig with an exec plugin is refused. AllowAll lets any plugin run; Allowlist lets those whose command
	// is, after filepath.Clean, exactly the Command of an entry (no PATH lookup decides it: name the command in the
	// kubeconfig as the entry does). The policy is also set on the returned rest.Config's
	// ExecProvider.PluginPolicy, so client-go enforces it again each time it runs the plugin.
	//
	// Allowing a plugin lets the kubeconfig's author choose its arguments and environment: allow only plugins that
	// cannot be made to do harm through them.
	ExecPlugins *clientcmdapi.PluginPolicy

	// AllowAuthProviders lets a kubeconfig use a legacy auth-provider plugin (users[].user.auth-provider), one
	// registered in the program with rest.RegisterAuthProviderPlugin. Its configuration is the kubeconfig
	// author's: an OIDC provider, for example, contacts the issuer the author names. Its idp-certificate-authority
	// (a path) also needs AllowLocalFiles.
	AllowAuthProviders bool

	// AllowLocalFiles lets a kubeconfig name files of the controller's filesystem: tokenFile, client-certificate,
	// client-key, certificate-authority and idp-certificate-authority of an auth-provider. Even then a path must
	// be absolute: nothing is resolved against the controller's working directory.
	AllowLocalFiles bool

	// AllowInsecureTLS lets a kubeconfig switch off the verification of the server's certificate
	// (insecure-skip-tls-verify), or reach its server over plain HTTP (a server URL without TLS).
	AllowInsecureTLS bool
}

// RESTConfigFromKubeconfig turns the bytes of a kubeconfig read from the API into the rest.Config of its current
// context, under policy. It is what every provider of this repository uses for kubeconfigs it reads from Secrets.
//
// The kubeconfig is refused, before anything runs or is read, if the context's cluster or user has a field the
// policy does not allow: the error then matches ErrKubeconfigRefused, is a *KubeconfigRefusedError, and names
// each refused field and the option of the policy that would allow it, never the field's value. Other contexts of
// the kubeconfig are not used and not judged. Relative paths are never resolved against the working directory.
// Errors never contain a credential of the kubeconfig. The returned config carries an exec plugin only if the
// policy allows it, with the policy in ExecProvider.PluginPolicy; the plugin runs when the config is used, never
// with the controller's standard input.
func RESTConfigFromKubeconfig(data []byte, policy KubeconfigPolicy) (*rest.Config, error) {
	config, err := clientcmd.Load(data)
	if err != nil {
		return nil, fmt.Errorf("cannot parse the kubeconfig: %s", scrub(err.Error(), data, nil))
	}
	cfg, err := RESTConfigForContext(config, config.CurrentContext, policy)
	if err != nil && !errors.Is(err, ErrKubeconfigRefused) {
		// The parsed config was scrubbed of its own credentials; the raw bytes may quote more.
		return nil, errors.New(scrub(err.Error(), data, nil))
	}
	return cfg, err
}

// RESTConfigForContext is RESTConfigFromKubeconfig for a kubeconfig already parsed, and the named context of it
// (the empty name is the default context, as in client-go). config is not modified. Paths of config must be
// absolute (clientcmd.ResolveLocalPaths makes those of a kubeconfig file so); LocationOfOrigin is not used.
func RESTConfigForContext(config *clientcmdapi.Config, contextName string, policy KubeconfigPolicy) (*rest.Config, error) {
	if err := policy.Validate(); err != nil {
		return nil, err
	}
	if config == nil {
		return nil, errors.New("no kubeconfig")
	}
	used := usedEntries(config, contextName)
	if err := policy.refusals(used.kubeconfigUses()).err(); err != nil {
		return nil, err
	}
	if used.user != nil && used.user.Exec != nil {
		// Set before client-go validates the user, which checks the plugin policy too.
		used.user.Exec.PluginPolicy = policy.pluginPolicy()
		used.user.Exec.StdinUnavailable = true
		used.user.Exec.StdinUnavailableMessage = "credential plugins of kubeconfigs read from the API get no standard input"
	}
	// No ConfigAccess: nothing is persisted to the controller's own kubeconfig files (auth-provider refreshes).
	cfg, err := clientcmd.NewNonInteractiveClientConfig(used.config(contextName), contextName, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("invalid kubeconfig: %s", scrub(err.Error(), nil, used.secrets()))
	}
	if cfg.ExecProvider != nil {
		cfg.ExecProvider.PluginPolicy = policy.pluginPolicy()
	}
	// What client-go built is judged again, so that a field it starts honouring tomorrow cannot slip through.
	if err := policy.CheckRESTConfig(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// CheckRESTConfig reports whether cfg stays within the policy: no exec plugin it does not allow (and, for one it
// allows, cfg's ExecProvider.PluginPolicy is the policy's), no auth-provider unless allowed, no file (token, client
// certificate and key, CA) unless allowed and absolute, and TLS verification on unless allowed. The error is a
// *KubeconfigRefusedError naming rest.Config's fields. Providers that build a rest.Config from API objects
// themselves check it with this.
func (p KubeconfigPolicy) CheckRESTConfig(cfg *rest.Config) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if cfg == nil {
		return errors.New("no rest.Config")
	}
	uses := restConfigUses(cfg)
	refused := p.refusals(uses)
	if cfg.ExecProvider != nil && !samePluginPolicy(cfg.ExecProvider.PluginPolicy, p.pluginPolicy()) {
		refused = append(refused, KubeconfigRefusal{
			Entry: "rest.Config", Field: "ExecProvider.PluginPolicy",
			Reason: "is not the policy's, so client-go would not enforce it", Option: "ExecPlugins",
		})
	}
	return refused.err()
}

// Validate returns an error if ExecPlugins is misconfigured, as client-go would when running a plugin: an unknown
// policy type, an Allowlist policy with no entry or an entry that is empty or not a clean path, or entries with
// another policy type. Every function that applies the policy validates it first.
func (p KubeconfigPolicy) Validate() error {
	if p.ExecPlugins == nil {
		return nil
	}
	if err := exec.ValidatePluginPolicy(*p.ExecPlugins); err != nil {
		return fmt.Errorf("invalid KubeconfigPolicy.ExecPlugins: %w", err)
	}
	return nil
}

// pluginPolicy is the PluginPolicy client-go enforces for an allowed plugin: ExecPlugins, or DenyAll when nil.
func (p KubeconfigPolicy) pluginPolicy() clientcmdapi.PluginPolicy {
	if p.ExecPlugins == nil {
		return clientcmdapi.PluginPolicy{PolicyType: clientcmdapi.PluginPolicyDenyAll}
	}
	policy := *p.ExecPlugins.DeepCopy()
	if policy.PolicyType == "" {
		policy.PolicyType = clientcmdapi.PluginPolicyAllowAll // client-go's meaning of ""
	}
	return policy
}

func samePluginPolicy(a, b clientcmdapi.PluginPolicy) bool {
	if a.PolicyType != b.PolicyType || len(a.Allowlist) != len(b.Allowlist) {
		return false
	}
	for i := range a.Allowlist {
		if a.Allowlist[i] != b.Allowlist[i] {
			return false
		}
	}
	return true
}

// execAllowed reports whether the policy lets command run: the reason it does not, and the option that would.
func (p KubeconfigPolicy) execAllowed(command string) (reason, option string, ok bool) {
	policy := p.pluginPolicy()
	switch policy.PolicyType {
	case clientcmdapi.PluginPolicyAllowAll:
		return "", "", true
	case clientcmdapi.PluginPolicyAllowlist:
		cleaned := filepath.Clean(command)
		for _, entry := range policy.Allowlist {
			if entry.Command == cleaned {
				return "", "", true
			}
		}
		return "names a command that is not in the allowlist", "ExecPlugins.Allowlist", false
	default:
		return "runs a credential plugin in the controller's container", "ExecPlugins", false
	}
}

// refusals judges what a kubeconfig or a rest.Config would make the controller do.
func (p KubeconfigPolicy) refusals(u []use) kubeconfigRefusals {
	var out kubeconfigRefusals
	refuse := func(u use, reason, option string) {
		out = append(out, KubeconfigRefusal{Entry: u.entry, Field: u.field, Reason: reason, Option: option})
	}
	for _, u := range u {
		switch u.kind {
		case useExec:
			if reason, option, ok := p.execAllowed(u.value); !ok {
				refuse(u, reason, option)
			} else if isRelativePath(u.value) {
				refuse(u, relativePath("command by its absolute path or by a name looked up in PATH"), "")
			}
		case useAuthProvider:
			if !p.AllowAuthProviders {
				refuse(u, "runs an auth-provider plugin", "AllowAuthProviders")
			}
		case useFile:
			switch {
			case !p.AllowLocalFiles:
				refuse(u, "names a file of the controller's filesystem", "AllowLocalFiles")
			case !filepath.IsAbs(u.value):
				refuse(u, relativePath("file by its absolute path"), "")
			}
		case useInsecureTLS:
			if !p.AllowInsecureTLS {
				refuse(u, "switches off the verification of the server's certificate", "AllowInsecureTLS")
			}
		case usePlainHTTP:
			if !p.AllowInsecureTLS {
				refuse(u, "reaches the server over plain HTTP, without TLS", "AllowInsecureTLS")
			}
		}
	}
	return out
}

// relativePath is the reason a relative path is refused, whatever the policy: what to name instead.
func relativePath(instead string) string {
	return "is a relative path, which would be resolved against the controller's working directory; name the " + instead
}

// isRelativePath reports whether a command names a file relative to the working directory: it has a path
// separator but is not absolute. A bare name is looked up in PATH instead.
func isRelativePath(command string) bool {
	return strings.ContainsAny(command, "/"+string(filepath.Separator)) && !filepath.IsAbs(command)
}
