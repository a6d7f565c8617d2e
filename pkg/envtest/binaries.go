// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package envtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// KubernetesVersion is the version of kube-apiserver the kit expects to find in its default binary assets directory.
// hack/envtest-assets.sh builds this version (and the etcd it requires) when KUBERNETES_VERSION is not set.
const KubernetesVersion = "v1.37.2"

// Names of the binaries every control plane runs.
const (
	etcdBinary      = "etcd"
	apiServerBinary = "kube-apiserver"
)

// binaryPath returns the path of the named binary in dir, unless the environment variable controller-runtime
// reads to override that binary (TEST_ASSET_ETCD, TEST_ASSET_KUBE_APISERVER) is set.
func binaryPath(dir, name string) string {
	if path := os.Getenv("TEST_ASSET_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))); path != "" {
		return path
	}
	return filepath.Join(dir, name)
}

// envAssets is the environment variable that names a directory holding the control plane binaries. It is the one
// controller-runtime's envtest and setup-envtest use.
const envAssets = "KUBEBUILDER_ASSETS"

// BinaryAssetsDirectory returns the directory that holds the etcd and kube-apiserver binaries the control planes run.
//
// If KUBEBUILDER_ASSETS is set, it is returned, provided it holds both binaries. Otherwise the default cache
// directory of hack/envtest-assets.sh is used:
//
//	${ENVTEST_ASSETS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/multicluster-runtime/envtest}/kubernetes-<KubernetesVersion>
//
// provided it holds both binaries. In every other case it returns an error that says how to get the binaries: run
// hack/envtest-assets.sh (or make test), or point KUBEBUILDER_ASSETS at a directory that has them.
func BinaryAssetsDirectory() (string, error) {
	if dir, ok := os.LookupEnv(envAssets); ok && dir != "" {
		if err := checkBinaries(dir); err != nil {
			return "", fmt.Errorf("%s=%q does not hold the control plane binaries: %w", envAssets, dir, err)
		}
		return dir, nil
	}
	dir, err := defaultBinaryAssetsDirectory()
	if err != nil {
		return "", err
	}
	if err := checkBinaries(dir); err != nil {
		return "", fmt.Errorf("control plane binaries for kubernetes %s not found: %w; "+
			"run hack/envtest-assets.sh (or make test) to build them, or set %s to a directory that holds "+
			"etcd and kube-apiserver", KubernetesVersion, err, envAssets)
	}
	return dir, nil
}

// defaultBinaryAssetsDirectory computes the directory hack/envtest-assets.sh --print-only prints when
// KUBERNETES_VERSION is not set.
func defaultBinaryAssetsDirectory() (string, error) {
	root := os.Getenv("ENVTEST_ASSETS_DIR")
	if root == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home := os.Getenv("HOME")
			if home == "" {
				return "", errors.New("unable to locate the envtest binary cache: none of ENVTEST_ASSETS_DIR, " +
					"XDG_CACHE_HOME and HOME is set")
			}
			cache = filepath.Join(home, ".cache")
		}
		root = filepath.Join(cache, "multicluster-runtime", "envtest")
	}
	return filepath.Join(root, "kubernetes-"+KubernetesVersion), nil
}

// checkBinaries returns an error unless dir holds executable etcd and kube-apiserver files.
func checkBinaries(dir string) error {
	for _, name := range []string{etcdBinary, apiServerBinary} {
		path := filepath.Join(dir, name)
		info, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("unable to find %s: %w", name, err)
		}
		if !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
			return fmt.Errorf("%s is not an executable file", path)
		}
	}
	return nil
}
