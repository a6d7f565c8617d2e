// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBinaries creates a directory with executable files named like the control plane binaries.
func fakeBinaries(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestBinaryAssetsDirectory(t *testing.T) {
	t.Run("KUBEBUILDER_ASSETS wins", func(t *testing.T) {
		dir := fakeBinaries(t, etcdBinary, apiServerBinary)
		t.Setenv("KUBEBUILDER_ASSETS", dir)
		t.Setenv("ENVTEST_ASSETS_DIR", t.TempDir())
		got, err := BinaryAssetsDirectory()
		if err != nil || got != dir {
			t.Fatalf("BinaryAssetsDirectory() = %q, %v; want %q", got, err, dir)
		}
	})
	t.Run("KUBEBUILDER_ASSETS without binaries", func(t *testing.T) {
		t.Setenv("KUBEBUILDER_ASSETS", fakeBinaries(t, etcdBinary))
		_, err := BinaryAssetsDirectory()
		if err == nil || !strings.Contains(err.Error(), "KUBEBUILDER_ASSETS") || !strings.Contains(err.Error(), apiServerBinary) {
			t.Fatalf("BinaryAssetsDirectory() error = %v, want one naming KUBEBUILDER_ASSETS and kube-apiserver", err)
		}
	})
	t.Run("default cache directory", func(t *testing.T) {
		root := t.TempDir()
		t.Setenv("KUBEBUILDER_ASSETS", "")
		t.Setenv("ENVTEST_ASSETS_DIR", root)
		_, err := BinaryAssetsDirectory()
		if err == nil || !strings.Contains(err.Error(), "hack/envtest-assets.sh") {
			t.Fatalf("BinaryAssetsDirectory() error = %v, want one telling to run hack/envtest-assets.sh", err)
		}
		want := filepath.Join(root, "kubernetes-"+KubernetesVersion)
		if err := os.MkdirAll(want, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{etcdBinary, apiServerBinary} {
			if err := os.WriteFile(filepath.Join(want, name), nil, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		got, err := BinaryAssetsDirectory()
		if err != nil || got != want {
			t.Fatalf("BinaryAssetsDirectory() = %q, %v; want %q", got, err, want)
		}
	})
	t.Run("default follows XDG_CACHE_HOME then HOME", func(t *testing.T) {
		t.Setenv("ENVTEST_ASSETS_DIR", "")
		t.Setenv("XDG_CACHE_HOME", "/xdg")
		t.Setenv("HOME", "/home/someone")
		got, err := defaultBinaryAssetsDirectory()
		if want := "/xdg/multicluster-runtime/envtest/kubernetes-" + KubernetesVersion; err != nil || got != want {
			t.Errorf("defaultBinaryAssetsDirectory() = %q, %v; want %q", got, err, want)
		}
		t.Setenv("XDG_CACHE_HOME", "")
		got, err = defaultBinaryAssetsDirectory()
		if want := "/home/someone/.cache/multicluster-runtime/envtest/kubernetes-" + KubernetesVersion; err != nil ||
			got != want {
			t.Errorf("defaultBinaryAssetsDirectory() = %q, %v; want %q", got, err, want)
		}
	})
}

func TestOptionsDefaults(t *testing.T) {
	dir := fakeBinaries(t, etcdBinary, apiServerBinary)
	t.Setenv("KUBEBUILDER_ASSETS", dir)
	t.Setenv(envStartTimeout, "")
	t.Setenv(envStopTimeout, "")
	o, err := Options{Members: -1}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.Members != 0 || o.MemberNamePrefix != DefaultMemberNamePrefix || o.NoHost || o.Scheme == nil ||
		o.BinaryAssetsDirectory != dir || o.ControlPlaneStartTimeout != DefaultControlPlaneStartTimeout ||
		o.ControlPlaneStopTimeout != DefaultControlPlaneStopTimeout || o.Logger.GetSink() == nil ||
		o.APIServerFlags == nil {
		t.Errorf("unexpected defaults: %+v", o)
	}

	t.Setenv(envStartTimeout, "90s")
	o, err = Options{}.withDefaults()
	if err != nil || o.ControlPlaneStartTimeout.String() != "1m30s" {
		t.Errorf("start timeout from %s = %v, %v; want 1m30s", envStartTimeout, o.ControlPlaneStartTimeout, err)
	}
	t.Setenv(envStartTimeout, "soon")
	if _, err := (Options{}).withDefaults(); err == nil {
		t.Errorf("an unparsable %s was accepted", envStartTimeout)
	}
}

func TestStartReportsMissingBinaries(t *testing.T) {
	t.Setenv("KUBEBUILDER_ASSETS", "")
	t.Setenv("ENVTEST_ASSETS_DIR", t.TempDir())
	f := NewFleet(Options{})
	err := f.Start(t.Context())
	if err == nil || !strings.Contains(err.Error(), "hack/envtest-assets.sh") {
		t.Fatalf("Start() error = %v, want one telling to run hack/envtest-assets.sh", err)
	}
	if err := f.Stop(); err != nil {
		t.Errorf("Stop() after a failed Start = %v, want nil", err)
	}
}
