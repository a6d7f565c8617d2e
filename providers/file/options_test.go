// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

func TestOptionsDefaults(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Options{KubeconfigFiles: []string{"rel/config", "/abs/../abs/config", "/abs/config"}, KubeconfigDirs: []string{"."}})
	if err != nil {
		t.Fatal(err)
	}
	s := p.settings
	if s.separator != DefaultSeparator || DefaultSeparator != "+" {
		t.Errorf("separator %q, want %q", s.separator, "+")
	}
	if !slices.Equal(s.globs, DefaultKubeconfigGlobs) {
		t.Errorf("globs %v, want %v", s.globs, DefaultKubeconfigGlobs)
	}
	if want := []string{filepath.Join(wd, "rel/config"), "/abs/config"}; !slices.Equal(s.files, want) {
		t.Errorf("files %v, want %v (absolute, clean, without duplicates)", s.files, want)
	}
	if want := []string{wd}; !slices.Equal(s.dirs, want) {
		t.Errorf("dirs %v, want %v", s.dirs, want)
	}
	if got, want := p.ClusterName("/abs/./config", "dev"), multicluster.ClusterName("/abs/config+dev"); got != want {
		t.Errorf("ClusterName = %q, want %q", got, want)
	}

	q, err := New(Options{KubeconfigFiles: []string{"/a"}, Separator: "#"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := q.ClusterName("/a", "b"), multicluster.ClusterName("/a#b"); got != want {
		t.Errorf("ClusterName = %q, want %q", got, want)
	}
}

func TestOptionsValidation(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{name: "bad glob", opts: Options{KubeconfigDirs: []string{"/tmp"}, KubeconfigGlobs: []string{"[a-"}}, wantErr: `invalid kubeconfig glob "[a-"`},
		{name: "glob with a path", opts: Options{KubeconfigDirs: []string{"/tmp"}, KubeconfigGlobs: []string{"sub/*.yaml"}}, wantErr: "cannot contain a path separator"},
		{name: "valid", opts: Options{KubeconfigFiles: []string{"/a/config"}, KubeconfigGlobs: []string{"*.conf", "x?[0-9].yaml"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.opts)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("got error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// Empty entries are ignored, so that lists split from empty comma-separated flags configure nothing: the lists
// that are left decide, and with nothing left the defaults apply.
func TestOptionsEmptyEntries(t *testing.T) {
	s, err := Options{KubeconfigFiles: []string{"", "/a/config", ""}, KubeconfigDirs: []string{""}, KubeconfigGlobs: []string{"", "*.conf"}}.complete()
	if err != nil {
		t.Fatal(err)
	}
	if !s.explicit || !slices.Equal(s.files, []string{"/a/config"}) || len(s.dirs) != 0 || !slices.Equal(s.globs, []string{"*.conf"}) {
		t.Errorf("got explicit=%v files=%v dirs=%v globs=%v, want explicit=true files=[/a/config] dirs=[] globs=[*.conf]",
			s.explicit, s.files, s.dirs, s.globs)
	}

	t.Setenv(envKubeconfig, "")
	fromFlags, err := Options{KubeconfigFiles: []string{""}, KubeconfigDirs: []string{""}, KubeconfigGlobs: []string{""}}.complete()
	if err != nil {
		t.Fatal(err)
	}
	defaults, err := Options{}.complete()
	if err != nil {
		t.Fatal(err)
	}
	if fromFlags.explicit || !slices.Equal(fromFlags.files, defaults.files) || !slices.Equal(fromFlags.dirs, defaults.dirs) ||
		!slices.Equal(fromFlags.globs, DefaultKubeconfigGlobs) {
		t.Errorf("only empty entries: got files=%v dirs=%v globs=%v, want the defaults files=%v dirs=%v globs=%v",
			fromFlags.files, fromFlags.dirs, fromFlags.globs, defaults.files, defaults.dirs, DefaultKubeconfigGlobs)
	}
}

func TestGlobMatching(t *testing.T) {
	s, err := Options{KubeconfigDirs: []string{"/d"}}.complete()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		"kubeconfig.yaml":        true,
		"kubeconfig.yml":         true,
		"prod.kubeconfig":        true,
		"prod.kubeconfig.yaml":   true,
		"prod.kubeconfig.yml":    true,
		"config":                 false,
		"notes.yaml":             false,
		".prod.kubeconfig.swp":   false,
		"prod.kubeconfig~":       false,
		"kubeconfig.yaml.backup": false,
	} {
		if got := s.matches(name); got != want {
			t.Errorf("matches(%q) = %v, want %v", name, got, want)
		}
	}
}
