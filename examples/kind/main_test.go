// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/envtest/program"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 1})
}

// seedReadme is the project README of the specification, whose code sample is ./readme.
const seedReadme = "../../../shared/seeds/004_366f89ae0bdefe5f.txt"

// readme/main.go is the README sample, unmodified: this module compiling is the proof that the sample compiles.
func TestReadmeIsTheREADMESample(t *testing.T) {
	readme, err := os.ReadFile(seedReadme)
	if os.IsNotExist(err) {
		t.Skipf("%s is not here; nothing to compare with", seedReadme)
	}
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "```golang\n")
	sample, _, ok2 := strings.Cut(after, "```")
	if !ok || !ok2 {
		t.Fatalf("no golang code block in %s", seedReadme)
	}
	ours, err := os.ReadFile(filepath.Join("readme", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	// The file carries the project's licence header, which the sample has not.
	body := strings.TrimPrefix(string(ours), "// Copyright 2026 The multicluster-runtime Authors.\n// SPDX-License-Identifier: Apache-2.0\n\n")
	if body != sample {
		t.Errorf("readme/main.go differs from the code sample of %s", seedReadme)
	}
}

// Both programs run against a kind cluster: kind's library talks to a stand-in for the docker CLI (the provider's
// testdata/docker) that presents a fleet member as the kind cluster "dev". Each program reconciles a ConfigMap in
// it, logs it with the cluster's name, and exits cleanly on SIGINT. main.go (the reference's form) leaves discovery
// to the manager; readme/main.go also runs provider.Run beside it.
func TestRunsAgainstAKindCluster(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "kind-example"}}
	if err := harness.Client(t, fleet, "member-0").Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	hostKubeconfig := filepath.Join(t.TempDir(), "host.kubeconfig")
	if err := fleet.WriteKubeconfig(hostKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	standInBin, err := filepath.Abs("../../providers/kind/testdata")
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, bin string, logged func(output string) bool) {
		clustersDir := filepath.Join(t.TempDir(), "clusters")
		standInCluster(t, clustersDir, "dev", "member-0")
		p := program.Start(t, bin, []string{"KUBECONFIG=" + hostKubeconfig,
			"PATH=" + standInBin + string(os.PathListSeparator) + os.Getenv("PATH"),
			"KIND_STANDIN_DIR=" + clustersDir,
			"KIND_EXPERIMENTAL_PROVIDER="})
		harness.Eventually(t, 0, "ConfigMap default/kind-example of cluster dev logged", func() bool { return logged(p.Output()) })
		p.Interrupt(t)
	}

	t.Run("main", func(t *testing.T) {
		run(t, program.Build(t), func(out string) bool {
			for line := range strings.Lines(out) {
				if strings.Contains(line, "ConfigMap found") && strings.Contains(line, `"cluster": "dev"`) &&
					strings.Contains(line, `"namespace": "default"`) && strings.Contains(line, `"name": "kind-example"`) {
					return true
				}
			}
			return false
		})
	})
	t.Run("readme", func(t *testing.T) {
		run(t, program.BuildPackage(t, "./readme"), func(out string) bool {
			return strings.Contains(out, `ConfigMap default/kind-example in cluster "dev"`)
		})
	})
}

// standInCluster makes the kind cluster name, served by member, in the stand-in runtime's directory dir.
func standInCluster(t *testing.T, dir, name, member string) {
	t.Helper()
	data, err := fleet.Kubeconfig(member)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := clientcmd.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(kc.Clusters[member].Server)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	for file, contents := range map[string][]byte{"admin.conf": data, "endpoint": []byte(u.Host + "\n")} {
		if err := os.WriteFile(filepath.Join(dir, name, file), contents, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
