// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package docs_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// installPage is the page whose commands TestInstallationAsDocumented runs.
const installPage = "getting-started/installation.md"

// installMarkerRE is the line before each shell block the test runs: <!-- install: name -->
var installMarkerRE = regexp.MustCompile(`^<!-- install: ([\w-]+) -->$`)

// installBlocks returns the shell blocks of the installation page by the name of their marker.
func installBlocks(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(installPage)
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]string{}
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		m := installMarkerRE.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		if i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) != "```sh" {
			t.Fatalf("%s:%d: the marker %q is not followed by a ```sh block", installPage, i+1, m[1])
		}
		var body []string
		for j := i + 2; j < len(lines) && strings.TrimSpace(lines[j]) != "```"; j++ {
			body = append(body, lines[j])
		}
		blocks[m[1]] = strings.Join(body, "\n") + "\n"
	}
	for _, name := range []string{"module", "release", "checkout", "build"} {
		if blocks[name] == "" {
			t.Fatalf("%s has no `<!-- install: %s -->` block", installPage, name)
		}
	}
	return blocks
}

// quickstartProgram returns the program the quickstart page shows: its one Go block.
func quickstartProgram(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("getting-started/quickstart.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)\n```go\n(.*?)\n```\n").FindAllStringSubmatch(string(data), -1)
	if len(m) != 1 {
		t.Fatalf("getting-started/quickstart.md has %d Go blocks, want one: the whole program", len(m))
	}
	return m[0][1] + "\n"
}

// TestInstallationAsDocumented runs the commands of the installation page in a scratch module, in the order a
// reader types them: start a module, depend on this repository (a local checkout: this working tree; or a release:
// this working tree served as a release of another module path by a module proxy in a directory), save the
// quickstart's program as main.go, and build it. It uses the module proxy the environment names for everything
// else, and the module cache, so it runs offline once the repository's own dependencies are downloaded.
func TestInstallationAsDocumented(t *testing.T) {
	blocks := installBlocks(t)
	program := quickstartProgram(t)
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("checkout", func(t *testing.T) {
		t.Parallel()
		runInstall(t, program, blocks["module"]+blocks["checkout"]+saveMain+blocks["build"], "MCR="+root)
	})

	t.Run("release", func(t *testing.T) {
		t.Parallel()
		// A module path of its own per run, so that what the module cache keeps of it is never taken for another
		// run's; it is removed from the cache when the test ends.
		modPath := fmt.Sprintf("example.com/mcr-install-test-%d/multicluster-runtime", time.Now().UnixNano())
		version := "v0.25.0"
		proxy := serveRelease(t, root, modPath, version)
		env := []string{
			"MCR_MODULE=" + modPath, "MCR_VERSION=" + version,
			"GOPROXY=file://" + filepath.ToSlash(proxy) + "," + goEnv(t, "GOPROXY"),
			"GONOSUMDB=" + modPath, "GOFLAGS=-modcacherw",
		}
		t.Cleanup(func() { removeFromModuleCache(t, modPath) })
		runInstall(t, program, blocks["module"]+blocks["release"]+saveMain+blocks["build"], env...)
	})
}

// saveMain stands for the reader saving the quickstart's program as main.go.
const saveMain = "cp \"$QUICKSTART_MAIN\" main.go\n"

// runInstall runs script with bash in a new directory, with the quickstart's program in $QUICKSTART_MAIN, and
// checks that it built hello-fleet/hello-fleet.
func runInstall(t *testing.T, program, script string, env ...string) {
	t.Helper()
	dir := t.TempDir()
	mainFile := filepath.Join(dir, "quickstart-main.go")
	if err := os.WriteFile(mainFile, []byte(program), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	// Outside this repository's go.work, as a reader's module is.
	cmd.Env = append(os.Environ(), append([]string{"GOWORK=off", "GOFLAGS=", "QUICKSTART_MAIN=" + mainFile}, env...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the commands of %s failed: %v\n--- script\n%s--- output\n%s", installPage, err, script, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "hello-fleet", "hello-fleet")); err != nil {
		t.Fatalf("the commands of %s built no hello-fleet/hello-fleet: %v\n%s", installPage, err, out)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "hello-fleet", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gomod), "sigs.k8s.io/multicluster-runtime/providers/file v0.0.0-00010101000000-000000000000") {
		t.Errorf("go.mod does not require providers/file at the version of a replaced module:\n%s", gomod)
	}
}

// serveRelease writes a module proxy into a directory that serves the root module and the provider modules of the
// working tree at root as version of modPath and modPath/providers/<name>, as a proxy serves a release of this
// repository hosted at modPath, and returns the directory.
func serveRelease(t *testing.T, root, modPath, version string) string {
	t.Helper()
	proxy := t.TempDir()
	dirs := map[string]string{modPath: root}
	providers, err := filepath.Glob(filepath.Join(root, "providers", "*", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, gomod := range providers {
		dirs[modPath+"/providers/"+filepath.Base(filepath.Dir(gomod))] = filepath.Dir(gomod)
	}
	for path, dir := range dirs {
		at := filepath.Join(proxy, filepath.FromSlash(path), "@v")
		if err := os.MkdirAll(at, 0o755); err != nil {
			t.Fatal(err)
		}
		gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		info, err := json.Marshal(struct{ Version, Time string }{version, time.Now().UTC().Format(time.RFC3339)})
		if err != nil {
			t.Fatal(err)
		}
		var zip bytes.Buffer
		if err := modzip.CreateFromDir(&zip, module.Version{Path: path, Version: version}, dir); err != nil {
			t.Fatalf("zipping %s: %v", dir, err)
		}
		for name, data := range map[string][]byte{
			"list": []byte(version + "\n"), version + ".info": info, version + ".mod": gomod, version + ".zip": zip.Bytes(),
		} {
			if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return proxy
}

// removeFromModuleCache removes what the module cache holds of the modules whose path starts with the first element
// of modPath's path after the host (example.com/mcr-install-test-N).
func removeFromModuleCache(t *testing.T, modPath string) {
	t.Helper()
	cache := goEnv(t, "GOMODCACHE")
	host, rest, _ := strings.Cut(modPath, "/")
	first, _, _ := strings.Cut(rest, "/")
	for _, dir := range []string{filepath.Join(cache, host, first), filepath.Join(cache, "cache", "download", host, first)} {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("removing %s from the module cache: %v", dir, err)
		}
	}
}

// goEnv returns the value of a go env variable.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
