// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kind_test

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/providers/kind"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// standIn puts testdata/docker, a stand-in for the docker CLI, first on PATH (a real docker client may be installed
// without an engine) and returns the directory where kind clusters are made with standInCluster.
func standIn(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "clusters")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("KIND_STANDIN_DIR", dir)
	t.Setenv("KIND_EXPERIMENTAL_PROVIDER", "")
	return dir
}

// standInCluster makes a kind cluster named name whose node serves member's API server: its admin.conf is the
// member's kubeconfig and its published endpoint the member's address.
func standInCluster(t *testing.T, dir, name, member string) {
	t.Helper()
	data := harness.Kubeconfig(t, fleet, member)
	u, err := url.Parse(harness.Config(t, fleet, member).Host)
	if err != nil {
		t.Fatal(err)
	}
	endpoint := u.Host
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	for file, contents := range map[string][]byte{"admin.conf": data, "endpoint": []byte(endpoint + "\n")} {
		if err := os.WriteFile(filepath.Join(dir, name, file), contents, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// The default path: with no Lister, the provider drives kind's own library, which detects the container runtime
// and runs its CLI, here a stand-in for docker. kind lists the cluster, reads the admin kubeconfig from the control
// plane node and points it at the published API server endpoint; the provider engages and reconciles it, and
// disengages it when the cluster is deleted.
func TestDefaultListerWithStandInRuntime(t *testing.T) {
	dir := standIn(t)
	ns := harness.NewNamespace(t, fleet, "kind-standin", "member-0")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	standInCluster(t, dir, "dev", "member-0")

	p := kind.New(kind.Options{PollInterval: fastPoll, ClusterOptions: []cluster.Option{harness.InNamespace(ns)}})
	_, rec, _ := harness.StartRecordingManager(t, fleet.Host(), p, nil)
	harness.Eventually(t, 0, "dev reconciled through kind's library", func() bool {
		return rec.Has(harness.Seen("dev", "obj", "member-0"))
	})

	if err := os.RemoveAll(filepath.Join(dir, "dev")); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "dev disengaged", func() bool { return len(p.ClusterNames()) == 0 })

	calls, err := os.ReadFile(dir + ".calls")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-v", "ps -a --filter label=io.x-k8s.kind.cluster", "exec --privileged dev-control-plane cat /etc/kubernetes/admin.conf"} {
		if !strings.Contains(string(calls), want) {
			t.Errorf("kind's library never ran %q; it ran:\n%s", want, calls)
		}
	}
}
