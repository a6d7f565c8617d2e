// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package access_test

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	clusteraccess "sigs.k8s.io/cluster-inventory-api/pkg/access"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/access"
)

// The fuzz targets of the parsers of user input of package access: access-provider files (credential-plugin
// configuration) and the access providers a ClusterProfile offers. Their seed corpora are in testdata/fuzz; run
// one for longer with, for example,
//
//	go test -run '^$' -fuzz '^FuzzNewFromFile$' -fuzztime 5m .

// Whatever an access-provider file holds, reading it never panics, and a Config it returns is valid: every
// provider has a name and a command, and no name repeats.
func FuzzNewFromFile(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), access.DefaultProviderFile)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := access.NewFromFile(path)
		if err != nil {
			if c != nil {
				t.Fatalf("a Config and an error: %v", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("the error %q does not name the file", err)
			}
			return
		}
		if err := access.Validate(c); err != nil {
			t.Fatalf("NewFromFile returned an invalid Config: %v", err)
		}
		seen := map[string]bool{}
		for _, p := range c.Providers {
			if p.Name == "" || p.ExecConfig == nil || p.ExecConfig.Command == "" || seen[p.Name] {
				t.Fatalf("provider %+v in %v", p, access.ProviderNames(c))
			}
			seen[p.Name] = true
		}
	})
}

// Whatever a ClusterProfile offers, building its rest.Config never panics; it reaches the configured plugin with
// the profile's server, or fails with an error naming the profile that shows nothing of the plugin's environment
// (where credentials of plugins live). Nothing of the profile makes the config read a file of the controller or
// use an auth-provider (clusters.KubeconfigPolicy would refuse them), and TLS verification is off only when the
// profile's entry asks so, which the strategy refuses unless allowed.
func FuzzBuildConfigFromCP(f *testing.F) {
	f.Fuzz(func(t *testing.T, offered string, cluster []byte, older bool, secret []byte) {
		value := "s3cr3t-" + hex.EncodeToString(secret)
		c, err := access.New([]access.Provider{{
			Name:                        "token",
			ExecConfig:                  &clientcmdapi.ExecConfig{Command: "/bin/plugin", Env: []clientcmdapi.ExecEnvVar{{Name: "PLUGIN_SECRET", Value: value}}},
			ProfileSourcedCLIArgsPolicy: clusteraccess.ProfileSourcedCLIArgsPolicyAppend,
			ProfileSourcedEnvVarsPolicy: clusteraccess.ProfileSourcedEnvVarsPolicyAppendIfNotExists,
		}})
		if err != nil {
			t.Fatal(err)
		}
		entry := clusterinventoryv1alpha1.AccessProvider{Name: offered}
		if json.Unmarshal(cluster, &entry.Cluster) != nil {
			return // the API server's schema admits only entries that decode
		}
		clp := &clusterinventoryv1alpha1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "east"}}
		if older {
			clp.Status.CredentialProviders = append(clp.Status.CredentialProviders, entry)
		} else {
			clp.Status.AccessProviders = append(clp.Status.AccessProviders, entry)
		}

		cfg, err := access.BuildConfigFromCP(c, clp)
		if err != nil {
			if cfg != nil {
				t.Fatalf("a config and an error: %v", err)
			}
			if !strings.Contains(err.Error(), "fleet/east") || strings.Contains(err.Error(), value) {
				t.Fatalf("the error %q does not name the profile, or shows the plugin's environment", err)
			}
			if offered != "token" && !strings.Contains(err.Error(), "none of its access providers") {
				t.Fatalf("offered %q, got %v", offered, err)
			}
			return
		}
		if offered != "token" {
			t.Fatalf("a config for the unconfigured type %q", offered)
		}
		e := cfg.ExecProvider
		if cfg.Host == "" || e == nil || e.Command != "/bin/plugin" || e.InteractiveMode != clientcmdapi.NeverExecInteractiveMode ||
			!slices.Contains(e.Env, clientcmdapi.ExecEnvVar{Name: "PLUGIN_SECRET", Value: value}) {
			t.Fatalf("config %+v with exec %+v", cfg, e)
		}
		fromProfile := rest.CopyConfig(cfg)
		fromProfile.ExecProvider = nil
		if err := (clusters.KubeconfigPolicy{AllowInsecureTLS: true}).CheckRESTConfig(fromProfile); err != nil {
			t.Fatalf("the profile made the config use more than insecure TLS: %v", err)
		}
		if cfg.Insecure != entry.Cluster.InsecureSkipTLSVerify {
			t.Fatalf("insecure %t, but the profile's entry says %t", cfg.Insecure, entry.Cluster.InsecureSkipTLSVerify)
		}
	})
}
