// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/file"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Every context of a kubeconfig file is a cluster named "<absolute path>+<context>". A controller reconciles
// objects of each member under those names: objects that exist before the provider discovers the file, and objects
// created after.
func TestFileWithTwoContexts(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "file-two-contexts", "member-0", "member-1")
	harness.CreateConfigMaps(t, fleet, ns, "before", "member-0", "member-1")

	path := filepath.Join(t.TempDir(), "fleet.yaml")
	writeFile(t, path, kubeconfig(t, map[string]string{"ctx-a": "member-0", "ctx-b": "member-1"}))
	p, err := file.New(file.Options{KubeconfigFiles: []string{path}, ClusterOptions: []cluster.Option{harness.InNamespace(ns)}})
	if err != nil {
		t.Fatal(err)
	}
	_, rec, _ := harness.StartRecordingManager(t, fleet.Host(), p, nil)

	nameA, nameB := multicluster.ClusterName(path+"+ctx-a"), multicluster.ClusterName(path+"+ctx-b")
	if got := p.ClusterName(path, "ctx-a"); got != nameA {
		t.Fatalf("ClusterName = %q, want %q", got, nameA)
	}
	harness.Eventually(t, 0, "objects existing before discovery reconciled", func() bool {
		return rec.Has(harness.Seen(nameA, "before", "member-0")) && rec.Has(harness.Seen(nameB, "before", "member-1"))
	})
	if got, want := p.ClusterNames(), []multicluster.ClusterName{nameA, nameB}; !slices.Equal(got, want) {
		t.Fatalf("clusters %v, want %v", got, want)
	}
	harness.CreateConfigMaps(t, fleet, ns, "after", "member-0", "member-1")
	harness.Eventually(t, 0, "objects created after discovery reconciled", func() bool {
		return rec.Has(harness.Seen(nameA, "after", "member-0")) && rec.Has(harness.Seen(nameB, "after", "member-1"))
	})
	for key := range rec.Keys() {
		if !strings.HasPrefix(key, nameA.String()+"/") && !strings.HasPrefix(key, nameB.String()+"/") {
			t.Errorf("reconciled under an unexpected name: %s", key)
		}
	}
}

// In a directory, the files whose names match the globs are read and the others ignored, as are directories whose
// names match.
func TestDirectoryWithGlobs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.kubeconfig"), kubeconfig(t, map[string]string{"m0": "member-0"}))
	writeFile(t, filepath.Join(dir, "kubeconfig.yaml"), kubeconfig(t, map[string]string{"m1": "member-1"}))
	writeFile(t, filepath.Join(dir, "notes.yaml"), kubeconfig(t, map[string]string{"m2": "member-2"}))
	if err := os.Mkdir(filepath.Join(dir, "sub.kubeconfig"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sub.kubeconfig", "kubeconfig.yaml"), kubeconfig(t, map[string]string{"m2": "member-2"}))

	p, err := file.New(file.Options{KubeconfigDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	aware := harness.NewEngagements()
	harness.StartProvider(t, p, aware)
	want := clusterNames(filepath.Join(dir, "a.kubeconfig")+"+m0", filepath.Join(dir, "kubeconfig.yaml")+"+m1")
	aware.WaitFor(t, harness.DefaultTimeout, "the matching files engaged", func() bool { return slices.Equal(aware.Names(), want) })

	// Custom globs select other files; the separator is configurable.
	q, err := file.New(file.Options{KubeconfigDirs: []string{dir}, KubeconfigGlobs: []string{"*.yaml"}, Separator: "#"})
	if err != nil {
		t.Fatal(err)
	}
	other := harness.NewEngagements()
	if err := q.RunOnce(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	want = clusterNames(filepath.Join(dir, "kubeconfig.yaml")+"#m1", filepath.Join(dir, "notes.yaml")+"#m2")
	if got := other.Names(); !slices.Equal(got, want) {
		t.Fatalf("engaged %v, want %v", got, want)
	}
}

// With nothing configured, the provider reads every file of $KUBECONFIG, ~/.kube/config and the files of the
// working directory that match the default globs. Not parallel: it changes the environment and the working
// directory of the test process.
func TestDefaultSources(t *testing.T) {
	home, wd, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".kube"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".kube", "config"), kubeconfig(t, map[string]string{"home": "member-0"}))
	writeFile(t, filepath.Join(elsewhere, "env.conf"), kubeconfig(t, map[string]string{"env": "member-1"}))
	if err := os.Mkdir(filepath.Join(wd, "rel"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(wd, "rel", "relative.conf"), kubeconfig(t, map[string]string{"rel": "member-1"}))
	writeFile(t, filepath.Join(wd, "kubeconfig.yaml"), kubeconfig(t, map[string]string{"cwd": "member-2"}))
	writeFile(t, filepath.Join(wd, "other.yaml"), kubeconfig(t, map[string]string{"other": "member-2"}))

	t.Setenv("HOME", home)
	t.Chdir(wd)
	// A path list with a file, a relative path (resolved against the working directory), a file that does not
	// exist, an empty entry, and a duplicate of ~/.kube/config.
	t.Setenv("KUBECONFIG", strings.Join([]string{
		filepath.Join(elsewhere, "env.conf"),
		filepath.Join("rel", "relative.conf"),
		filepath.Join(elsewhere, "missing"),
		"",
		filepath.Join(home, ".kube", "config"),
	}, string(os.PathListSeparator)))

	want := clusterNames(
		filepath.Join(elsewhere, "env.conf")+"+env",
		filepath.Join(home, ".kube", "config")+"+home",
		filepath.Join(wd, "kubeconfig.yaml")+"+cwd",
		filepath.Join(wd, "rel", "relative.conf")+"+rel",
	)
	if got := defaultsEngaged(t); !slices.Equal(got, want) {
		t.Fatalf("engaged %v, want %v", got, want)
	}

	// Without $KUBECONFIG: ~/.kube/config and the working directory.
	t.Setenv("KUBECONFIG", "")
	want = clusterNames(filepath.Join(home, ".kube", "config")+"+home", filepath.Join(wd, "kubeconfig.yaml")+"+cwd")
	if got := defaultsEngaged(t); !slices.Equal(got, want) {
		t.Fatalf("engaged %v, want %v", got, want)
	}
}

// A context whose API server cannot be reached delays no other cluster: the others are engaged and reconciled
// promptly.
func TestUnreachableContextDelaysNoOther(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "file-unreachable", "member-0")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	path := filepath.Join(t.TempDir(), "fleet.kubeconfig")
	writeFile(t, path, kubeconfig(t, map[string]string{"dead": unreachable, "live": "member-0"}))
	p, err := file.New(file.Options{KubeconfigFiles: []string{path}, ClusterOptions: []cluster.Option{harness.InNamespace(ns)}})
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	_, rec, _ := harness.StartRecordingManager(t, fleet.Host(), p, nil)
	harness.Eventually(t, 10*time.Second, "the reachable member reconciled", func() bool {
		return rec.Has(harness.Seen(multicluster.ClusterName(path+"+live"), "obj", "member-0"))
	})
	t.Logf("reachable member reconciled %s after start, beside an unreachable one", time.Since(began).Round(time.Millisecond))
}

// defaultsEngaged runs a provider of the default sources once and returns the names of the clusters it engaged,
// sorted.
func defaultsEngaged(t *testing.T) []multicluster.ClusterName {
	t.Helper()
	p, err := file.New(file.Options{})
	if err != nil {
		t.Fatal(err)
	}
	aware := harness.NewEngagements()
	if err := p.RunOnce(t.Context(), aware); err != nil {
		t.Fatal(err)
	}
	return aware.Names()
}
