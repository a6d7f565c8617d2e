// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package reference

import (
	"encoding/json"
	"errors"
	"go/version"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

const (
	// ModulePath is the module path of this repository's root module and of the reference implementation.
	ModulePath = "sigs.k8s.io/multicluster-runtime"
	// Version is the release of the reference implementation the tests compare with.
	Version = "v0.24.1"
)

// Module is the reference implementation, downloaded.
type Module struct {
	// Dir is its directory in the module cache (read-only).
	Dir string
	// GoMod is its go.mod.
	GoMod *modfile.File
}

// RepoRoot returns the directory of this repository's root module.
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot tell where the reference package's source is")
	}
	// This file is test/compat/reference/internal/reference/reference.go.
	root := filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the repository root %s has no go.mod: %v", root, err)
	}
	return root
}

// ScratchEnv is the environment of go commands in a scratch module: no workspace, and go.mod and go.sum updated as
// needed.
func ScratchEnv() []string {
	return append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
}

// RepoEnv is the environment of go commands in this repository's root module: its own go.mod, never changed.
func RepoEnv() []string {
	return append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
}

// Download fetches the reference implementation at Version through the Go module proxy into the module cache (a
// no-op when it is there already) and returns it. When the proxy cannot be reached, the test is skipped, except in
// CI.
func Download(t testing.TB) Module {
	t.Helper()
	out, err := Go(t.TempDir(), ScratchEnv(), "mod", "download", "-json", ModulePath+"@"+Version).Output()
	var info struct{ Dir, GoMod, Error string }
	_ = json.Unmarshal(out, &info)
	if err != nil || info.Error != "" {
		Unreachable(t, "downloading "+ModulePath+"@"+Version, info.Error+" "+stderrOf(err))
	}
	return Module{Dir: info.Dir, GoMod: readModFile(t, info.GoMod)}
}

// Scratch writes a scratch module named path in a temporary directory and returns its directory. It requires every
// module that this repository's root module or the reference requires, each at the higher of the two versions (so
// controller-runtime and k8s.io/* are this module's), and ModulePath: the reference at Version, or, with
// workingTree, this repository's working tree in its place (a replace directive). Its go.sum starts as the root
// module's; go commands run with ScratchEnv add what is missing.
func Scratch(t testing.TB, ref Module, path string, workingTree bool) string {
	t.Helper()
	root := RepoRoot(t)
	ours := readModFile(t, filepath.Join(root, "go.mod"))

	versions := map[string]string{}
	for _, f := range []*modfile.File{ours, ref.GoMod} {
		for _, r := range f.Require {
			if v, ok := versions[r.Mod.Path]; !ok || semver.Compare(r.Mod.Version, v) > 0 {
				versions[r.Mod.Path] = r.Mod.Version
			}
		}
	}
	versions[ModulePath] = Version
	if workingTree {
		versions[ModulePath] = "v0.0.0-00010101000000-000000000000"
	}
	goVersion := ours.Go.Version
	if ref.GoMod.Go != nil && version.Compare("go"+ref.GoMod.Go.Version, "go"+goVersion) > 0 {
		goVersion = ref.GoMod.Go.Version
	}

	var b strings.Builder
	b.WriteString("module " + path + "\n\ngo " + goVersion + "\n\nrequire (\n")
	paths := make([]string, 0, len(versions))
	for p := range versions {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		b.WriteString("\t" + p + " " + versions[p] + "\n")
	}
	b.WriteString(")\n")
	if workingTree {
		b.WriteString("\nreplace " + ModulePath + " => " + root + "\n")
	}

	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), b.String())
	sums, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "go.sum"), string(sums))
	return dir
}

// Unreachable skips the test when output, of a go command that failed, shows that the Go module proxy cannot be
// reached, and fails it otherwise, or always in CI (CI=true).
func Unreachable(t testing.TB, what, output string) {
	t.Helper()
	if os.Getenv("CI") != "true" && offline(output) {
		t.Skipf("the Go module proxy cannot be reached, so the reference implementation cannot be downloaded; "+
			"skipping (this test never skips in CI): %s: %s", what, strings.TrimSpace(output))
	}
	t.Fatalf("%s: %s", what, strings.TrimSpace(output))
}

// offline reports whether a go command's output is that of a network that does not reach the module proxy.
func offline(output string) bool {
	for _, sign := range []string{
		"dial tcp", "no such host", "connection refused", "i/o timeout", "network is unreachable",
		"TLS handshake timeout", "proxyconnect", "Temporary failure in name resolution", "connection reset",
	} {
		if strings.Contains(output, sign) {
			return true
		}
	}
	return false
}

// Go returns the go command with args, run in dir with env.
func Go(dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	return cmd
}

// stderrOf returns the standard error of a failed command's error, or the error's text.
func stderrOf(err error) string {
	if err == nil {
		return ""
	}
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && len(exit.Stderr) > 0 {
		return string(exit.Stderr)
	}
	return err.Error()
}

func readModFile(t testing.TB, path string) *modfile.File {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.ParseLax(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
