// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// DefaultSeparator separates a kubeconfig file's path from a context name in cluster names when Options.Separator
// is empty: context "prod" of /etc/fleet/eu.kubeconfig is the cluster "/etc/fleet/eu.kubeconfig+prod".
const DefaultSeparator = "+"

// DefaultKubeconfigGlobs are the file name patterns a directory is searched with when Options.KubeconfigGlobs is
// empty. They are matched with filepath.Match against file names (not paths).
var DefaultKubeconfigGlobs = []string{
	"kubeconfig.yaml",
	"kubeconfig.yml",
	"*.kubeconfig",
	"*.kubeconfig.yaml",
	"*.kubeconfig.yml",
}

// Options configures a Provider: where its kubeconfig files are, how its clusters are named and how they are built.
// The zero value is valid and searches the default locations.
type Options struct {
	// KubeconfigFiles are kubeconfig files, each read in full: every context in it is a cluster. A file that does
	// not exist yet is not an error; it is engaged when it appears. Empty entries are ignored, so that the result of
	// strings.Split on an empty flag value configures nothing.
	KubeconfigFiles []string

	// KubeconfigDirs are directories searched, not recursively, for files whose names match KubeconfigGlobs. Files
	// appearing in them later are engaged, files leaving them are disengaged. A directory that does not exist yet is
	// not an error. Empty entries are ignored.
	KubeconfigDirs []string

	// KubeconfigGlobs are the file name patterns (filepath.Match syntax, matched against names, not paths) that
	// select the files of KubeconfigDirs. Empty entries are ignored; with none left, DefaultKubeconfigGlobs apply.
	KubeconfigGlobs []string

	// Separator separates the file path from the context name in cluster names. Defaults to DefaultSeparator ("+").
	Separator string

	// ClusterOptions are applied to every cluster the provider builds, with clusters.NewCluster(name, config,
	// ClusterOptions...): the library's defaults fill what they leave unset.
	ClusterOptions []cluster.Option

	// KubeconfigPolicy, when set, says what the kubeconfig files may make the controller do, as for kubeconfigs
	// read from the API (see clusters.KubeconfigPolicy): a context using a field it does not allow is not engaged,
	// and the error names the file, the context, the field and the option that would allow it. Relative paths in a
	// file are resolved against the file's directory first, as kubectl does. Nil, the default, honours every field:
	// the files are the operator's, placed where only the operator can write.
	KubeconfigPolicy *clusters.KubeconfigPolicy
}

// envKubeconfig is the environment variable kubectl reads its kubeconfig files from.
const envKubeconfig = "KUBECONFIG"

// settings are the options with every default applied and every path made absolute.
type settings struct {
	// files and dirs are absolute, cleaned and free of duplicates, in the order given.
	files []string
	dirs  []string
	// explicit is set when the user configured files or directories; otherwise they are the defaults.
	explicit       bool
	globs          []string
	separator      string
	clusterOptions []cluster.Option
	// policy is a copy of Options.KubeconfigPolicy; nil honours everything.
	policy *clusters.KubeconfigPolicy
}

// complete applies the defaults to o in one step and validates the result. Empty entries of the lists are dropped
// first: a list of only empty entries (as strings.Split returns for an empty flag) counts as unset. Relative paths,
// including those of $KUBECONFIG, are resolved against the working directory at the time of the call.
func (o Options) complete() (*settings, error) {
	files, dirs := nonEmpty(o.KubeconfigFiles), nonEmpty(o.KubeconfigDirs)
	s := &settings{
		globs:          nonEmpty(o.KubeconfigGlobs),
		separator:      o.Separator,
		clusterOptions: slices.Clone(o.ClusterOptions),
		explicit:       len(files) > 0 || len(dirs) > 0,
	}
	if len(s.globs) == 0 {
		s.globs = slices.Clone(DefaultKubeconfigGlobs)
	}
	if o.KubeconfigPolicy != nil {
		policy := *o.KubeconfigPolicy
		if err := policy.Validate(); err != nil {
			return nil, err
		}
		s.policy = &policy
	}
	if s.separator == "" {
		s.separator = DefaultSeparator
	}
	for _, g := range s.globs {
		if strings.ContainsRune(g, '/') || strings.ContainsRune(g, filepath.Separator) {
			return nil, fmt.Errorf("invalid kubeconfig glob %q: globs match file names and cannot contain a path separator", g)
		}
		if _, err := filepath.Match(g, ""); err != nil {
			return nil, fmt.Errorf("invalid kubeconfig glob %q: %w", g, err)
		}
	}

	if !s.explicit {
		files, dirs = defaultSources()
	}
	var err error
	if s.files, err = absolutePaths("kubeconfig file", files); err != nil {
		return nil, err
	}
	if s.dirs, err = absolutePaths("kubeconfig directory", dirs); err != nil {
		return nil, err
	}
	return s, nil
}

// nonEmpty returns a copy of list without its empty entries.
func nonEmpty(list []string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return s == "" })
}

// defaultSources returns the places searched when neither files nor directories are configured: every file of
// $KUBECONFIG (a list separated by os.PathListSeparator), ~/.kube/config, and the working directory.
func defaultSources() (files, dirs []string) {
	for _, f := range filepath.SplitList(os.Getenv(envKubeconfig)) {
		if f != "" {
			files = append(files, f)
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		files = append(files, filepath.Join(home, ".kube", "config"))
	}
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	return files, dirs
}

// absolutePaths makes paths absolute and clean and drops empty paths and duplicates.
func absolutePaths(what string, paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("invalid %s %q: %w", what, p, err)
		}
		if !slices.Contains(out, abs) {
			out = append(out, abs)
		}
	}
	return out, nil
}

// clusterName is the name of the cluster for a context of a kubeconfig file: the file's absolute path, the
// separator and the context name.
func (s *settings) clusterName(path, contextName string) multicluster.ClusterName {
	return multicluster.ClusterName(path + s.separator + contextName)
}

// matches reports whether a file name matches one of the globs.
func (s *settings) matches(name string) bool {
	for _, g := range s.globs {
		if ok, _ := filepath.Match(g, name); ok {
			return true
		}
	}
	return false
}
