// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package harness

import (
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
)

// RunWithFleet is mcenvtest.RunWithFleet: the body of a test package's TestMain.
func RunWithFleet(m *testing.M, fleet **mcenvtest.Fleet, opts mcenvtest.Options) {
	mcenvtest.RunWithFleet(m, fleet, opts)
}

// Config returns a member's rest.Config or fails the test.
func Config(t testing.TB, fleet *mcenvtest.Fleet, name string) *rest.Config {
	t.Helper()
	cfg, err := fleet.Config(name)
	if err != nil {
		t.Fatalf("config of %s: %v", name, err)
	}
	return cfg
}

// Client returns a direct (uncached) client of a member or fails the test.
func Client(t testing.TB, fleet *mcenvtest.Fleet, name string) client.Client {
	t.Helper()
	c, err := client.New(Config(t, fleet, name), client.Options{})
	if err != nil {
		t.Fatalf("client of %s: %v", name, err)
	}
	return c
}

// NewCluster builds (does not start) a cluster.Cluster for a member or fails the test.
func NewCluster(t testing.TB, fleet *mcenvtest.Fleet, name string, opts ...cluster.Option) cluster.Cluster {
	t.Helper()
	cl, err := cluster.New(Config(t, fleet, name), opts...)
	if err != nil {
		t.Fatalf("cluster for %s: %v", name, err)
	}
	return cl
}

// Kubeconfig returns the self-contained kubeconfig of a member of fleet (envtest.Fleet.Kubeconfig), or fails the
// test.
func Kubeconfig(t testing.TB, fleet *mcenvtest.Fleet, name string) []byte {
	t.Helper()
	data, err := fleet.Kubeconfig(name)
	if err != nil {
		t.Fatalf("kubeconfig of %s: %v", name, err)
	}
	return data
}

// LoadKubeconfig returns the kubeconfig of a member of fleet, loaded (its cluster, user and context are named after
// the member), or fails the test.
func LoadKubeconfig(t testing.TB, fleet *mcenvtest.Fleet, name string) *clientcmdapi.Config {
	t.Helper()
	kc, err := clientcmd.Load(Kubeconfig(t, fleet, name))
	if err != nil {
		t.Fatalf("kubeconfig of %s: %v", name, err)
	}
	return kc
}

// TokenKubeconfig returns a kubeconfig of one context, "c", that reaches server with token, trusting caData (or, if
// it is empty, the system's roots: for a server that is never reached). It never skips TLS verification, which the
// default clusters.KubeconfigPolicy refuses.
func TokenKubeconfig(t testing.TB, server string, caData []byte, token string) []byte {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caData}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	cfg.CurrentContext = "c"
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// ContainsAll reports whether s contains every one of subs.
func ContainsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
