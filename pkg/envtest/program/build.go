// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package program

import (
	"os/exec"
	"path"
	"path/filepath"
	"testing"
)

// Build builds the program of the test's own package (the working directory of a package's tests) and returns the
// binary's path. A program that no longer compiles fails the test with the compiler's output.
func Build(t testing.TB) string {
	t.Helper()
	return BuildPackage(t, ".")
}

// BuildPackage builds the program of the package pkg, which need not be the test's own, and returns the binary's
// path, named after the package's last path element ("program" for "." or ".."). pkg is what `go build` takes: an
// import path, or a directory relative to the working directory (the test's package) starting with "./" or "../".
// It is built in the working directory's module, like Build, and a build failure fails the test.
func BuildPackage(t testing.TB, pkg string) string {
	t.Helper()
	name := path.Base(filepath.ToSlash(pkg))
	if name == "." || name == ".." || name == "/" {
		name = "program"
	}
	bin := filepath.Join(t.TempDir(), name)
	if out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s (a program that no longer compiles is a breaking change): %v\n%s", pkg, err, out)
	}
	return bin
}
