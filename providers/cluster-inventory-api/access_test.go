// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusterinventoryapi_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"

	clusterinventoryapi "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/access"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/kubeconfigstrategy"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// accessEntry is an access-provider entry of type typ reaching member, with an extension for the plugin.
func accessEntry(t testing.TB, typ, member string) clusterinventoryv1alpha1.AccessProvider {
	t.Helper()
	kc := harness.LoadKubeconfig(t, fleet, member)
	src := kc.Clusters[member]
	cl := clientcmdv1.Cluster{
		Server:                   src.Server,
		CertificateAuthorityData: src.CertificateAuthorityData,
		Extensions: []clientcmdv1.NamedExtension{{
			Name:      access.ExecExtensionName,
			Extension: runtime.RawExtension{Raw: []byte(`{"audience":"fleet"}`)},
		}},
	}
	return clusterinventoryv1alpha1.AccessProvider{Name: typ, Cluster: cl}
}

// writeProviderFile writes a KEP-5339 access-provider file with the test plugin under the types "token" (returns
// the token the fleet accepts, writing the cluster info it gets to infoFile when that is set) and "broken" (fails),
// and returns its path.
func writeProviderFile(t testing.TB, infoFile string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), access.DefaultProviderFile)
	file := `{"providers": [
  {"name": "token", "execConfig": {"apiVersion": "client.authentication.k8s.io/v1beta1", "command": "` + plugin + `",
    "env": [{"name": "PLUGIN_TOKEN", "value": "` + pluginToken + `"}, {"name": "PLUGIN_INFO_FILE", "value": "` + infoFile + `"}],
    "provideClusterInfo": true}},
  {"name": "broken", "execConfig": {"apiVersion": "client.authentication.k8s.io/v1beta1", "command": "` + plugin + `",
    "env": [{"name": "PLUGIN_FAIL", "value": "1"}]}}
]}`
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// accessOption is the AccessProvider strategy with the test's provider file.
func accessOption(t testing.TB, infoFile string) kubeconfigstrategy.Option {
	t.Helper()
	cfg, err := access.NewFromFile(writeProviderFile(t, infoFile))
	if err != nil {
		t.Fatal(err)
	}
	return kubeconfigstrategy.Option{AccessProvider: &kubeconfigstrategy.AccessProviderOption{Provider: cfg}}
}

// readyIn is clusterinventoryapi.IsReady for the profiles of namespace ns only: tests share the hub, and a
// provider would otherwise engage the profiles other tests left behind.
func readyIn(ns string) func(context.Context, *clusterinventoryv1alpha1.ClusterProfile) bool {
	return func(ctx context.Context, clp *clusterinventoryv1alpha1.ClusterProfile) bool {
		return clp.Namespace == ns && clusterinventoryapi.IsReady(ctx, clp)
	}
}

// setAccessProviders replaces the profile's status.accessProviders on the hub.
func setAccessProviders(t testing.TB, clp *clusterinventoryv1alpha1.ClusterProfile, entries ...clusterinventoryv1alpha1.CredentialProvider) {
	t.Helper()
	clp.Status.AccessProviders = entries
	if err := hubClient(t).Status().Update(t.Context(), clp); err != nil {
		t.Fatal(err)
	}
}
