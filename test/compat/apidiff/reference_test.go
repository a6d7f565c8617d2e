package apidiff_test

import (
	"encoding/json"
	"errors"
	"go/version"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

const (
	// modulePath is the module path of this repository's root module and of the reference implementation.
	modulePath = "sigs.k8s.io/multicluster-runtime"
	// referenceVersion is the release of the reference implementation the API is compared with.
	referenceVersion = "v0.24.1"
)

// repoRoot returns the directory of this repository's root module.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the repository root %s has no go.mod: %v", root, err)
	}
	return root
}

// scratchEnv is the environment of go commands in a scratch module: no workspace, and go.mod and go.sum updated as
// needed (the scratch module is written by the test, in a temporary directory).
func scratchEnv() []string {
	return append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
}

// repoEnv is the environment of go commands in this repository's root module: its own go.mod, never changed.
func repoEnv() []string {
	return append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
}

// referenceModule writes a scratch module in a temporary directory that requires the reference implementation at
// referenceVersion, with every requirement of this repository's root module (so controller-runtime, k8s.io/* and
// their dependencies are raised to this module's versions, and controller-runtime's own changes do not count),
// and returns its directory. The reference is downloaded through the Go module proxy into the module cache; when
// the proxy cannot be reached the test is skipped, except in CI (CI=true), where it fails.
func referenceModule(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	ours := readModFile(t, filepath.Join(root, "go.mod"))

	// The reference's go.mod first: its go version may be newer than ours, and fetching it tells whether the
	// proxy is reachable.
	download := goCommand(dir, scratchEnv(), "mod", "download", "-json", modulePath+"@"+referenceVersion)
	out, err := download.Output()
	var info struct{ GoMod, Error string }
	_ = json.Unmarshal(out, &info)
	if err != nil || info.Error != "" {
		unreachable(t, "downloading "+modulePath+"@"+referenceVersion, info.Error+" "+stderrOf(err))
	}
	reference := readModFile(t, info.GoMod)

	goVersion := ours.Go.Version
	if reference.Go != nil && version.Compare("go"+reference.Go.Version, "go"+goVersion) > 0 {
		goVersion = reference.Go.Version
	}
	var b strings.Builder
	b.WriteString("module apidiff.invalid/reference\n\ngo " + goVersion + "\n\nrequire (\n")
	b.WriteString("\t" + modulePath + " " + referenceVersion + "\n")
	for _, r := range ours.Require {
		b.WriteString("\t" + r.Mod.Path + " " + r.Mod.Version + "\n")
	}
	b.WriteString(")\n")
	writeFile(t, filepath.Join(dir, "go.mod"), b.String())
	// Our checksums spare most lookups in the checksum database; go adds the rest.
	sums, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "go.sum"), string(sums))
	return dir
}

// unreachable skips the test when output shows that the Go module proxy cannot be reached, and fails it otherwise
// or in CI.
func unreachable(t *testing.T, what, output string) {
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

func goCommand(dir string, env []string, args ...string) *exec.Cmd {
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

func readModFile(t *testing.T, path string) *modfile.File {
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

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
