// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/file"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// quiet is how long a test watches for something that must not happen.
const quiet = time.Second

// A running provider follows its files: each step changes the files the way users and tools do and checks the
// fleet, through a controller reconciling ConfigMaps, which records the member each object came from. Every member
// holds an object "obj" from the start.
func TestWatchFollowsFiles(t *testing.T) {
	members := []string{"member-0", "member-1", "member-2"}
	ns := harness.NewNamespace(t, fleet, "file-watch", members...)
	for _, m := range members {
		harness.CreateConfigMap(t, fleet, m, ns, "obj")
	}

	dir := t.TempDir()
	explicit := filepath.Join(t.TempDir(), "explicit", "config") // its directory does not exist yet either
	p, err := file.New(file.Options{
		KubeconfigDirs:  []string{dir},
		KubeconfigFiles: []string{explicit},
		ClusterOptions:  []cluster.Option{harness.InNamespace(ns)},
	})
	if err != nil {
		t.Fatal(err)
	}
	errs := &errorRecorder{}
	p.ErrorHandler = errs.handle
	mgr, rec, _ := harness.StartRecordingManager(t, fleet.Host(), p, nil)

	one := filepath.Join(dir, "one.kubeconfig")
	nameA, nameB, nameC := multicluster.ClusterName(one+"+a"), multicluster.ClusterName(one+"+b"), multicluster.ClusterName(one+"+c")
	engaged := func(name multicluster.ClusterName) cluster.Cluster {
		cl, err := p.Get(t.Context(), name)
		if err != nil {
			return nil
		}
		return cl
	}
	gone := func(name multicluster.ClusterName) bool {
		_, err := p.Get(t.Context(), name)
		_, mgrErr := mgr.GetCluster(t.Context(), name)
		return errors.Is(err, multicluster.ErrClusterNotFound) && errors.Is(mgrErr, multicluster.ErrClusterNotFound)
	}

	var clusterA cluster.Cluster
	t.Run("new file is engaged", func(t *testing.T) {
		writeFile(t, one, kubeconfig(t, map[string]string{"a": "member-0"}))
		harness.Eventually(t, 0, "a reconciled from member-0", func() bool { return rec.Has(harness.Seen(nameA, "obj", "member-0")) })
		clusterA = engaged(nameA)
	})

	t.Run("context appended to a file is engaged", func(t *testing.T) {
		writeFile(t, one, kubeconfig(t, map[string]string{"a": "member-0", "b": "member-1"}))
		harness.Eventually(t, 0, "b reconciled from member-1", func() bool { return rec.Has(harness.Seen(nameB, "obj", "member-1")) })
		if engaged(nameA) != clusterA {
			t.Fatal("the unchanged context a was replaced")
		}
	})

	t.Run("context pointed at another member is replaced", func(t *testing.T) {
		clusterB := engaged(nameB)
		writeFile(t, one, kubeconfig(t, map[string]string{"a": "member-2", "b": "member-1"}))
		harness.Eventually(t, 0, "a reconciled from member-2", func() bool { return rec.Has(harness.Seen(nameA, "obj", "member-2")) })
		if cl := engaged(nameA); cl == nil || cl == clusterA || cl.GetConfig().Host != harness.Config(t, fleet, "member-2").Host {
			t.Fatal("a does not reach member-2 through a new cluster")
		}
		if engaged(nameB) != clusterB {
			t.Fatal("the unchanged context b was replaced")
		}
		// Events of the old member no longer reach a; those of the new one do.
		harness.CreateConfigMaps(t, fleet, ns, "after-move", "member-0", "member-2")
		harness.Eventually(t, 0, "a reconciles new objects of member-2", func() bool { return rec.Has(harness.Seen(nameA, "after-move", "member-2")) })
		harness.Consistently(t, quiet, "a ignores member-0", func() bool { return !rec.Has(harness.Seen(nameA, "after-move", "member-0")) })
	})

	t.Run("context removed from a file is disengaged", func(t *testing.T) {
		writeFile(t, one, kubeconfig(t, map[string]string{"a": "member-2"}))
		harness.Eventually(t, 0, "b gone", func() bool { return gone(nameB) })
		if engaged(nameA) == nil {
			t.Fatal("a was disengaged too")
		}
	})

	t.Run("file appearing in a new directory through a rename is engaged", func(t *testing.T) {
		if err := os.MkdirAll(filepath.Dir(explicit), 0o700); err != nil {
			t.Fatal(err)
		}
		writeAtomic(t, explicit, kubeconfig(t, map[string]string{"x": "member-1"}))
		harness.Eventually(t, 0, "x reconciled from member-1", func() bool { return rec.Has(harness.Seen(multicluster.ClusterName(explicit+"+x"), "obj", "member-1")) })
	})

	t.Run("file replaced by a rename is followed", func(t *testing.T) {
		writeAtomic(t, explicit, kubeconfig(t, map[string]string{"x": "member-0"}))
		harness.Eventually(t, 0, "x reconciled from member-0", func() bool { return rec.Has(harness.Seen(multicluster.ClusterName(explicit+"+x"), "obj", "member-0")) })
		// Editors also rename the old file away before writing the new one.
		if err := os.Rename(explicit, explicit+"~"); err != nil {
			t.Fatal(err)
		}
		writeFile(t, explicit, kubeconfig(t, map[string]string{"x": "member-1", "y": "member-2"}))
		harness.Eventually(t, 0, "y reconciled from member-2", func() bool { return rec.Has(harness.Seen(multicluster.ClusterName(explicit+"+y"), "obj", "member-2")) })
		if cl := engaged(multicluster.ClusterName(explicit + "+x")); cl == nil || cl.GetConfig().Host != harness.Config(t, fleet, "member-1").Host {
			t.Fatal("x does not reach member-1")
		}
	})

	t.Run("malformed file is reported and skipped", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.kubeconfig")
		writeFile(t, bad, []byte("clusters: [\n  this is: not: a kubeconfig\n"))
		harness.Eventually(t, 0, "the malformed file reported", func() bool { return len(errs.matching(bad)) > 0 })
		// The others keep running.
		harness.CreateConfigMap(t, fleet, "member-2", ns, "after-bad")
		harness.Eventually(t, 0, "a still reconciles", func() bool { return rec.Has(harness.Seen(nameA, "after-bad", "member-2")) })
		if err := os.Remove(bad); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("file edited into a malformed one keeps its clusters until fixed", func(t *testing.T) {
		current := engaged(nameA)
		writeAtomic(t, one, []byte("apiVersion: v1\nkind: Config\nclusters: {{{\n"))
		harness.Eventually(t, 0, "the malformed file reported", func() bool { return len(errs.matching(one, "keeping the clusters of its last good version")) > 0 })
		harness.Consistently(t, quiet, "a still engaged", func() bool { return engaged(nameA) == current })
		harness.CreateConfigMap(t, fleet, "member-2", ns, "while-malformed")
		harness.Eventually(t, 0, "a still reconciles", func() bool { return rec.Has(harness.Seen(nameA, "while-malformed", "member-2")) })

		writeAtomic(t, one, kubeconfig(t, map[string]string{"a": "member-2", "c": "member-0"}))
		harness.Eventually(t, 0, "c reconciled from member-0", func() bool { return rec.Has(harness.Seen(nameC, "obj", "member-0")) })
		if engaged(nameA) != current {
			t.Fatal("a was replaced although its context did not change")
		}
	})

	t.Run("file removed is disengaged", func(t *testing.T) {
		if err := os.Remove(one); err != nil {
			t.Fatal(err)
		}
		harness.Eventually(t, 0, "a and c gone", func() bool { return gone(nameA) && gone(nameC) })
		if engaged(multicluster.ClusterName(explicit+"+x")) == nil {
			t.Fatal("x was disengaged too")
		}
	})

	t.Run("file renamed to a name no glob matches is disengaged", func(t *testing.T) {
		two := filepath.Join(dir, "two.kubeconfig")
		writeFile(t, two, kubeconfig(t, map[string]string{"t": "member-1"}))
		harness.Eventually(t, 0, "t engaged", func() bool { return engaged(multicluster.ClusterName(two+"+t")) != nil })
		if err := os.Rename(two, filepath.Join(dir, "two.bak")); err != nil {
			t.Fatal(err)
		}
		harness.Eventually(t, 0, "t gone", func() bool { return gone(multicluster.ClusterName(two + "+t")) })
	})

	t.Run("directory removed disengages its files and is watched again when recreated", func(t *testing.T) {
		if err := os.RemoveAll(filepath.Dir(explicit)); err != nil {
			t.Fatal(err)
		}
		harness.Eventually(t, 0, "x and y gone", func() bool {
			return gone(multicluster.ClusterName(explicit+"+x")) && gone(multicluster.ClusterName(explicit+"+y"))
		})
		if err := os.MkdirAll(filepath.Dir(explicit), 0o700); err != nil {
			t.Fatal(err)
		}
		writeFile(t, explicit, kubeconfig(t, map[string]string{"z": "member-2"}))
		harness.Eventually(t, 0, "z reconciled from member-2", func() bool { return rec.Has(harness.Seen(multicluster.ClusterName(explicit+"+z"), "obj", "member-2")) })
	})

	if got, want := p.ClusterNames(), clusterNames(explicit+"+z"); !slices.Equal(got, want) {
		t.Fatalf("clusters at the end %v, want %v", got, want)
	}
}

// A kubeconfig in a Kubernetes Secret or ConfigMap volume is updated by swapping the "..data" symbolic link to a
// new directory; the file itself is a link through it and sees no event of its own.
func TestKubernetesVolumeUpdate(t *testing.T) {
	dir := t.TempDir()
	writeVersion := func(version string, contexts map[string]string) {
		t.Helper()
		vdir := filepath.Join(dir, "..v"+version)
		if err := os.Mkdir(vdir, 0o700); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(vdir, "fleet.kubeconfig"), kubeconfig(t, contexts))
		tmp := filepath.Join(dir, "..data_tmp")
		if err := os.Symlink("..v"+version, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
			t.Fatal(err)
		}
	}
	writeVersion("1", map[string]string{"k": "member-0"})
	if err := os.Symlink(filepath.Join("..data", "fleet.kubeconfig"), filepath.Join(dir, "fleet.kubeconfig")); err != nil {
		t.Fatal(err)
	}

	p, err := file.New(file.Options{KubeconfigDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	aware := harness.NewEngagements()
	harness.StartProvider(t, p, aware)
	name := multicluster.ClusterName(filepath.Join(dir, "fleet.kubeconfig") + "+k")
	host := func(member string) string { return harness.Config(t, fleet, member).Host }
	aware.WaitFor(t, harness.DefaultTimeout, "k engaged on member-0", func() bool {
		cl := aware.Cluster(name)
		return cl != nil && cl.GetConfig().Host == host("member-0")
	})
	writeVersion("2", map[string]string{"k": "member-1"})
	aware.WaitFor(t, harness.DefaultTimeout, "k replaced by member-1", func() bool {
		cl := aware.Cluster(name)
		return cl != nil && cl.GetConfig().Host == host("member-1")
	})
}
