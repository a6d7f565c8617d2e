// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
)

// parseKubeconfig turns the contents of the kubeconfig file at path into a rest.Config per context. Relative file
// references in it (certificate files, token files) are resolved against the file's directory, as kubectl does.
//
// err is set when the file as a whole cannot be parsed. contextErrs holds the contexts that cannot be turned into a
// rest.Config (for example a context naming a cluster the file does not define), or that policy, when not nil,
// refuses. Neither error contains any credential of the file.
func parseKubeconfig(path string, data []byte, policy *clusters.KubeconfigPolicy) (configs map[string]*rest.Config, contextErrs map[string]error, err error) {
	kubeconfig, err := clientcmd.Load(data)
	if err != nil {
		return nil, nil, fmt.Errorf("unable to parse kubeconfig %s: %w", path, redact(err, data))
	}
	for _, c := range kubeconfig.Clusters {
		c.LocationOfOrigin = path
	}
	for _, a := range kubeconfig.AuthInfos {
		a.LocationOfOrigin = path
	}
	if err := clientcmd.ResolveLocalPaths(kubeconfig); err != nil {
		return nil, nil, fmt.Errorf("unable to resolve the paths of kubeconfig %s: %w", path, redact(err, data))
	}

	configs = make(map[string]*rest.Config, len(kubeconfig.Contexts))
	contextErrs = map[string]error{}
	for name := range kubeconfig.Contexts {
		if name == "" {
			contextErrs[name] = fmt.Errorf("kubeconfig %s: a context has an empty name", path)
			continue
		}
		var cfg *rest.Config
		if policy != nil {
			cfg, err = clusters.RESTConfigForContext(kubeconfig, name, *policy)
		} else {
			cfg, err = clientcmd.NewNonInteractiveClientConfig(*kubeconfig, name, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
		}
		if err != nil {
			contextErrs[name] = fmt.Errorf("kubeconfig %s: context %q: %w", path, name, redact(err, data))
			continue
		}
		configs[name] = cfg
	}
	return configs, contextErrs, nil
}

// credentialKeys are the kubeconfig fields whose values are secrets.
var credentialKeys = []string{
	"token", "password", "client-key-data", "client-certificate-data", "id-token", "refresh-token",
	"client-secret", "access-token",
}

// credentialValueAt matches, at the start of its input, a credential field's name, the colon and the value after it,
// in YAML or JSON text, whether or not the document around it is well formed.
var credentialValueAt = regexp.MustCompile(`\A(?:` + strings.Join(credentialKeys, "|") + `)["']?\s*:\s*["']?([^"'\s,}\]]+)`)

// credentialValues returns the values of the credential fields found in data. It looks only where a field's name
// occurs, and skips what a value already covered, so that its cost stays linear in the size of data: a large file
// of garbage (several MB) costs milliseconds, not the seconds a regular expression run over all of it would.
func credentialValues(data []byte) []string {
	var values []string
	for _, key := range credentialKeys {
		k := []byte(key)
		for off := 0; off < len(data); {
			i := bytes.Index(data[off:], k)
			if i < 0 {
				break
			}
			start := off + i
			// Anchored at the name: the expression looks no further than the value.
			m := credentialValueAt.FindSubmatchIndex(data[start:])
			if m == nil {
				off = start + len(k)
				continue
			}
			values = append(values, string(data[start+m[2]:start+m[3]]))
			off = start + m[1]
		}
	}
	return values
}

// redact returns err with every credential value found in data removed from its message. Parse errors of some
// decoders quote the document around the failure; whatever they quote, no credential of the file is shown.
func redact(err error, data []byte) error {
	msg := err.Error()
	var secrets []string
	for _, v := range credentialValues(data) {
		if len(v) >= 4 {
			secrets = append(secrets, v)
		}
	}
	// Longest first, so that a secret containing another is removed whole.
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	redacted := msg
	for _, s := range secrets {
		redacted = strings.ReplaceAll(redacted, s, "[redacted]")
	}
	if redacted == msg {
		return err
	}
	// Not wrapped: the original error still holds the credentials.
	return errors.New(redacted)
}
