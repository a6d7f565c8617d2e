// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"errors"
	"fmt"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
)

// A kubeconfig read from a Secret asks for a credential plugin and a file of the controller's filesystem: the zero
// policy refuses it, naming the fields and the options that would allow them, before anything runs or is read.
func ExampleRESTConfigFromKubeconfig() {
	kubeconfig := []byte(`apiVersion: v1
kind: Config
clusters: [{name: prod, cluster: {server: "https://prod.example:6443"}}]
users: [{name: admin, user: {tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token,
  exec: {command: /bin/sh, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never}}}]
contexts: [{name: prod, context: {cluster: prod, user: admin}}]
current-context: prod
`)
	_, err := clusters.RESTConfigFromKubeconfig(kubeconfig, clusters.KubeconfigPolicy{})
	fmt.Println(errors.Is(err, clusters.ErrKubeconfigRefused))
	var refused *clusters.KubeconfigRefusedError
	if errors.As(err, &refused) {
		for _, r := range refused.Refusals {
			fmt.Println(r.Entry, r.Field, "->", r.Option)
		}
	}

	// snippet:start kubeconfig-policy
	// Let the fleet's kubeconfigs run one credential plugin, which client-go also checks each time it runs it;
	// everything else stays refused.
	policy := clusters.KubeconfigPolicy{
		ExecPlugins: &clientcmdapi.PluginPolicy{
			PolicyType: clientcmdapi.PluginPolicyAllowlist,
			Allowlist:  []clientcmdapi.AllowlistEntry{{Command: "/usr/local/bin/fleet-credentials"}},
		},
	}
	// snippet:end kubeconfig-policy
	_, err = clusters.RESTConfigFromKubeconfig(kubeconfig, policy)
	fmt.Println(err)
	// Output:
	// true
	// user "admin" tokenFile -> AllowLocalFiles
	// user "admin" exec -> ExecPlugins
	// kubeconfig refused by its policy: user "admin": tokenFile names a file of the controller's filesystem (set KubeconfigPolicy.AllowLocalFiles to allow it); user "admin": exec names a command that is not in the allowlist (set KubeconfigPolicy.ExecPlugins.Allowlist to allow it)
}
