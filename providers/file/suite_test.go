// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file_test

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/file"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// unreachable names, in kubeconfig, a cluster whose API server does not exist.
const unreachable = "unreachable"

// kubeconfig returns a kubeconfig with a context per key of contexts, each reaching the member named by its value
// (or no server at all for unreachable) with the member's admin credentials. Cluster and user entries are named
// after the context.
func kubeconfig(t testing.TB, contexts map[string]string) []byte {
	t.Helper()
	out := clientcmdapi.NewConfig()
	for ctxName, member := range contexts {
		var (
			cl   *clientcmdapi.Cluster
			user *clientcmdapi.AuthInfo
		)
		if member == unreachable {
			cl = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1", InsecureSkipTLSVerify: true}
			user = &clientcmdapi.AuthInfo{Token: "unreachable"}
		} else {
			kc := harness.LoadKubeconfig(t, fleet, member)
			cl, user = kc.Clusters[member], kc.AuthInfos[member]
		}
		out.Clusters[ctxName] = cl
		out.AuthInfos[ctxName] = user
		out.Contexts[ctxName] = &clientcmdapi.Context{Cluster: ctxName, AuthInfo: ctxName}
	}
	data, err := clientcmd.Write(*out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// fileProvider writes a kubeconfig file named name with the given contexts (see kubeconfig) in a directory of the
// test, and returns a provider of that file and the file's path.
func fileProvider(t testing.TB, name string, contexts map[string]string) (*file.Provider, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	writeFile(t, path, kubeconfig(t, contexts))
	p, err := file.New(file.Options{KubeconfigFiles: []string{path}})
	if err != nil {
		t.Fatal(err)
	}
	return p, path
}

// writeFile writes data to path in place, truncating it first, like os.WriteFile.
func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// writeAtomic writes data to a temporary file in path's directory, under a name no glob matches, and renames it
// over path, as editors and kubectl do.
func writeAtomic(t testing.TB, path string, data []byte) {
	t.Helper()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tmp.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := tmp.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		t.Fatal(err)
	}
}

// clusterNames converts names to cluster names, sorted as providers list them.
func clusterNames(names ...string) []multicluster.ClusterName {
	out := make([]multicluster.ClusterName, len(names))
	for i, n := range names {
		out[i] = multicluster.ClusterName(n)
	}
	slices.Sort(out)
	return out
}

// errorRecorder is an ErrorHandler that records what it is handed.
type errorRecorder struct {
	mu   sync.Mutex
	errs []string
}

func (e *errorRecorder) handle(err error, msg string, keysAndValues ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.errs = append(e.errs, msg+": "+err.Error())
	_ = keysAndValues
}

// matching returns the recorded errors that contain every one of subs.
func (e *errorRecorder) matching(subs ...string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, msg := range e.errs {
		if harness.ContainsAll(msg, subs...) {
			out = append(out, msg)
		}
	}
	return out
}

// fleet is shared by the tests of this package: a host and three members. Tests never share a namespace.
var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 3})
}
