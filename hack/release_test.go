// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package hack_test tests the scripts of hack/ on scratch copies of the repository.
package hack_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repoRoot is the repository root, one level above this package.
const repoRoot = ".."

// scratchRepo is a git repository in a temporary directory, without the tags of this one, whose last commit, on
// main, is this working tree as it is (its tracked and untracked files that .gitignore does not ignore), so that the
// scripts under test are the ones being changed.
type scratchRepo struct {
	t   *testing.T
	dir string
}

func newScratchRepo(t *testing.T) *scratchRepo {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	r := &scratchRepo{t: t, dir: filepath.Join(t.TempDir(), "repo")}
	// A clone that shares the working tree's objects and checks nothing out; its index is then filled with the
	// working tree's files.
	runCmd(t, root, "git", "clone", "--quiet", "--shared", "--no-checkout", "--no-tags", root, r.dir)
	files := strings.Split(strings.TrimRight(runCmd(t, root, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"), "\x00"), "\x00")
	for _, f := range files {
		src := filepath.Join(root, f)
		st, err := os.Lstat(src)
		if err != nil {
			continue // deleted in the working tree
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(r.dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	r.git("config", "user.name", "Release Test")
	r.git("config", "user.email", "release-test@example.com")
	r.git("add", "-A")
	r.git("commit", "--quiet", "--no-verify", "--allow-empty", "-m", "the working tree") // empty when the tree is clean
	r.git("branch", "-M", "main")
	return r
}

func (r *scratchRepo) git(args ...string) string {
	r.t.Helper()
	return runCmd(r.t, r.dir, "git", args...)
}

// write writes a file of the repository.
func (r *scratchRepo) write(name, content string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.dir, name), []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *scratchRepo) read(name string) string {
	r.t.Helper()
	data, err := os.ReadFile(filepath.Join(r.dir, name))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(data)
}

// commitAll commits every change of the scratch repository.
func (r *scratchRepo) commitAll(msg string) {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "--quiet", "--no-verify", "-m", msg)
}

// script runs a script of hack/ in the scratch repository and returns its output and whether it succeeded.
func (r *scratchRepo) script(name string, args ...string) (string, bool) {
	r.t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join("hack", name)}, args...)...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=")
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

func (r *scratchRepo) tags() []string {
	r.t.Helper()
	out := strings.Fields(r.git("tag", "--list"))
	slices.Sort(out)
	return out
}

func runCmd(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr)
	}
	return string(out)
}

// tidy runs `go mod tidy` in each module of the scratch repository that is not tidy, and commits, so that a module
// left untidy in the working tree (which release.sh refuses, see TestReleaseRefuses) does not stop the release.
func (r *scratchRepo) tidy() {
	r.t.Helper()
	for _, mod := range strings.Fields(runCmd(r.t, r.dir, "bash", "hack/test-all-modules.sh", "--list")) {
		dir := filepath.Join(r.dir, mod)
		check := exec.Command("go", "mod", "tidy", "-diff")
		check.Dir, check.Env = dir, append(os.Environ(), "GOWORK=off", "GOFLAGS=")
		if check.Run() == nil {
			continue
		}
		r.t.Logf("module %s of the working tree is not tidy (make tidy); tidied in the scratch copy", mod)
		tidy := exec.Command("go", "mod", "tidy")
		tidy.Dir, tidy.Env = dir, check.Env
		if out, err := tidy.CombinedOutput(); err != nil {
			r.t.Fatalf("go mod tidy in %s: %v\n%s", mod, err, out)
		}
	}
	if r.git("status", "--porcelain") != "" {
		r.commitAll("make tidy")
	}
}

// addChangelogSection gives CHANGELOG.md a section for version and commits it, as the release procedure does.
func (r *scratchRepo) addChangelogSection(version string) {
	r.t.Helper()
	changelog := r.read("CHANGELOG.md")
	changelog = strings.Replace(changelog, "## [Unreleased]", "## [Unreleased]\n\n## ["+version+"] - 2026-11-25", 1)
	r.write("CHANGELOG.md", changelog)
	r.commitAll("CHANGELOG.md: " + version)
}

// TestReleaseRefuses runs hack/release.sh where it must refuse, and checks that it says why and creates no tag and
// no commit.
func TestReleaseRefuses(t *testing.T) {
	r := newScratchRepo(t)
	refuse := func(why string, want string, args ...string) {
		t.Helper()
		head := r.git("rev-parse", "HEAD")
		out, ok := r.script("release.sh", append([]string{"--skip-tests"}, args...)...)
		if ok {
			t.Errorf("%s: release.sh %v succeeded:\n%s", why, args, out)
		} else if !strings.Contains(out, want) {
			t.Errorf("%s: release.sh %v does not say %q:\n%s", why, args, want, out)
		}
		if tags := r.tags(); len(tags) > 0 {
			t.Errorf("%s: release.sh created tags %v", why, tags)
		}
		if now := r.git("rev-parse", "HEAD"); now != head {
			t.Errorf("%s: release.sh committed", why)
		}
	}

	refuse("not a version", "is not a semantic version", "0.25")
	refuse("a minor other than controller-runtime's", "does not follow controller-runtime v0.25", "v0.26.0")
	refuse("no changelog section", "CHANGELOG.md has no section for v0.25.0", "v0.25.0")

	r.addChangelogSection("v0.25.0")
	r.write("stray.txt", "not committed\n")
	refuse("an untracked file", "the working tree is not clean", "v0.25.0")
	if err := os.Remove(filepath.Join(r.dir, "stray.txt")); err != nil {
		t.Fatal(err)
	}

	r.git("checkout", "--quiet", "-b", "feature")
	refuse("not on main", "on branch feature", "v0.25.0")
	r.git("checkout", "--quiet", "main")

	// An untidy module: a requirement the core module's code needs is gone from its go.mod.
	gomod := r.read("go.mod")
	var kept []string
	for line := range strings.Lines(gomod) {
		if !strings.Contains(line, "golang.org/x/sync ") {
			kept = append(kept, line)
		}
	}
	r.write("go.mod", strings.Join(kept, ""))
	r.commitAll("go.mod: untidy")
	refuse("an untidy module", "module . is not tidy", "v0.25.0")
}

// TestReleaseTagsEveryPublishedModule cuts a release in a scratch repository: every published module (the core
// module and each provider module) is tagged at the release commit, the provider modules require the core module
// at the version, the modules that are not published get no tag, nothing is pushed, and the push command is
// printed. A second run of the same version refuses.
func TestReleaseTagsEveryPublishedModule(t *testing.T) {
	r := newScratchRepo(t)
	r.tidy()
	r.addChangelogSection("v0.25.1")
	out, ok := r.script("release.sh", "--skip-tests", "v0.25.1")
	if !ok {
		t.Fatalf("release.sh v0.25.1 failed:\n%s", out)
	}

	providers, err := filepath.Glob(filepath.Join(r.dir, "providers", "*", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	want := make([]string, 0, 1+len(providers))
	want = append(want, "v0.25.1")
	for _, p := range providers {
		want = append(want, "providers/"+filepath.Base(filepath.Dir(p))+"/v0.25.1")
	}
	slices.Sort(want)
	if got := r.tags(); !slices.Equal(got, want) {
		t.Errorf("tags: got %v, want %v (the core module and every provider module, nothing else)", got, want)
	}
	head := strings.TrimSpace(r.git("rev-parse", "HEAD"))
	for _, tag := range want {
		if at := strings.TrimSpace(r.git("rev-parse", tag+"^{commit}")); at != head {
			t.Errorf("tag %s is on %s, not on the release commit %s", tag, at, head)
		}
		if kind := strings.TrimSpace(r.git("cat-file", "-t", tag)); kind != "tag" {
			t.Errorf("tag %s is a %s, want an annotated tag", tag, kind)
		}
	}
	if msg := r.git("log", "-1", "--format=%s"); !strings.HasPrefix(msg, "Release v0.25.1") {
		t.Errorf("HEAD is %q, want the release commit", msg)
	}
	for _, p := range providers {
		rel, _ := filepath.Rel(r.dir, p)
		if gomod := r.read(rel); !strings.Contains(gomod, "\tsigs.k8s.io/multicluster-runtime v0.25.1\n") {
			t.Errorf("%s does not require the core module at v0.25.1:\n%s", rel, gomod)
		}
	}
	if !strings.Contains(out, "git push origin main "+strings.Join(orderedTags(want), " ")) {
		t.Errorf("the output lacks the push command for main and every tag:\n%s", out)
	}
	if origin := strings.Fields(runCmd(t, repoRoot, "git", "tag", "--list", "v0.25.1", "providers/*/v0.25.1")); len(origin) > 0 {
		t.Errorf("the repository the scratch one was cloned from has the tags %v: release.sh pushed", origin)
	}
	if status := r.git("status", "--porcelain"); status != "" {
		t.Errorf("the release left the tree dirty:\n%s", status)
	}

	out, ok = r.script("release.sh", "--skip-tests", "v0.25.1")
	if ok || !strings.Contains(out, "tag v0.25.1 exists already") {
		t.Errorf("a second release of v0.25.1: want a refusal saying the tag exists, got (ok=%v):\n%s", ok, out)
	}
}

// orderedTags returns tags as release.sh prints them: the core module's first, then the providers' in order.
func orderedTags(sorted []string) []string {
	var core, rest []string
	for _, tag := range sorted {
		if strings.Contains(tag, "/") {
			rest = append(rest, tag)
		} else {
			core = append(core, tag)
		}
	}
	return append(core, rest...)
}
