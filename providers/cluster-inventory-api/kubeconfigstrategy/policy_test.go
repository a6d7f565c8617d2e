// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfigstrategy_test

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/access"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/kubeconfigstrategy"
)

// A profile's access-provider entry that switches off TLS verification, or names a server without TLS, is refused
// unless AllowInsecureTLS is set: the error names the profile and the option and matches ErrKubeconfigRefused. The
// plugin, from the operator's file, is not judged.
func TestAccessProviderStrategyRefusesInsecureTLS(t *testing.T) {
	cfg, err := access.New([]access.Provider{
		{Name: "token", ExecConfig: &clientcmdapi.ExecConfig{Command: "token-plugin", APIVersion: "client.authentication.k8s.io/v1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, entry := range map[string]clientcmdv1.Cluster{
		"insecure-skip-tls-verify": {Server: "https://east", InsecureSkipTLSVerify: true},
		"plain HTTP":               {Server: "http://east"},
	} {
		clp := &clusterinventoryv1alpha1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: "east"}}
		clp.Status.AccessProviders = []clusterinventoryv1alpha1.CredentialProvider{{Name: "token", Cluster: entry}}
		for _, allow := range []bool{false, true} {
			for option, opt := range map[string]kubeconfigstrategy.Option{
				"AccessProvider":      {AccessProvider: &kubeconfigstrategy.AccessProviderOption{Config: cfg, AllowInsecureTLS: allow}},
				"CredentialsProvider": {CredentialsProvider: &kubeconfigstrategy.CredentialsProviderOption{Provider: cfg, AllowInsecureTLS: allow}},
			} {
				s, err := kubeconfigstrategy.New(t.Context(), opt)
				if err != nil {
					t.Fatal(err)
				}
				rc, err := s.GetKubeConfig(t.Context(), nil, clp)
				switch {
				case allow && (err != nil || rc.ExecProvider == nil):
					t.Errorf("%s, %s, allowed: got %v, %v", name, option, rc, err)
				case !allow && (rc != nil || !errors.Is(err, clusters.ErrKubeconfigRefused) ||
					!strings.Contains(err.Error(), testNamespace+"/east") || !strings.Contains(err.Error(), "AccessProviderOption.AllowInsecureTLS")):
					t.Errorf("%s, %s: got %v, %v; want a refusal naming the profile and the option", name, option, rc, err)
				}
			}
		}
	}
}
