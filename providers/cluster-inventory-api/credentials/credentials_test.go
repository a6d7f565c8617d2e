// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package credentials_test

import (
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	clusteraccess "sigs.k8s.io/cluster-inventory-api/pkg/access"

	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/access"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/credentials"
)

// The deprecated names keep compiling and behave as their access counterparts: a CredentialsProvider is an
// access.Config, built by New or NewFromFile, and builds the same rest.Config.
func TestDeprecatedAliases(t *testing.T) {
	cp, err := credentials.New([]credentials.Provider{{Name: "token", ExecConfig: &clientcmdapi.ExecConfig{Command: "/bin/token"}}})
	if err != nil {
		t.Fatal(err)
	}
	clp := &clusterinventoryv1alpha1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "east"}}
	clp.Status.CredentialProviders = []clusterinventoryv1alpha1.CredentialProvider{{Name: "token", Cluster: clientcmdv1.Cluster{Server: "https://east"}}}
	// The method expression compiles only because a *CredentialsProvider is the published *access.Config.
	rc, err := (*clusteraccess.Config).BuildConfigFromCP(cp, clp)
	if err != nil || rc.Host != "https://east" || rc.ExecProvider.Command != "/bin/token" {
		t.Errorf("BuildConfigFromCP() = %v, %v", rc, err)
	}
	if _, err := credentials.New([]credentials.Provider{{Name: "token"}}); err == nil {
		t.Error("New accepted a provider without a command")
	}

	path := filepath.Join(t.TempDir(), credentials.DefaultProviderFile)
	if err := os.WriteFile(path, []byte(`{"providers": [{"name": "a", "execConfig": {"command": "x"}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fromFile, err := credentials.NewFromFile(path)
	if err != nil || len(access.ProviderNames(fromFile)) != 1 {
		t.Errorf("NewFromFile() = %v, %v", fromFile, err)
	}
	file := credentials.File{Providers: fromFile.Providers}
	if access.ProviderNames(&file)[0] != "a" {
		t.Errorf("File is not the access.Config of the file: %+v", file)
	}
}
