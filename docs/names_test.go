// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package docs_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestProseNamesResolve checks what the prose of every Markdown file of the repository names, where a reader would
// type or look it up:
//
//   - Go names in inline code (`mcbuilder.WebhookManagedBy(mgr, obj)`, `Options.IsReady`, `mgr.GetCluster`,
//     `GetEventRecorder`) resolve against the packages of every module of the repository and the packages they
//     import (controller-runtime, client-go, ...), under the aliases the code uses; calls have the number of
//     arguments the function takes, literals of the right kind, and arguments named like the function's parameters
//     in the same order; a deprecated name is named only in a paragraph that says it is deprecated.
//   - Paths (`pkg/clusters`, `providers/file`, `test/integration/harness.SharedGoroutines`) exist, relative to the
//     repository root, the page or the page's module; import paths of this repository are packages.
//   - `make` commands name targets and variables of the Makefile, and the flags in a variable such as DEMO_FLAGS are
//     flags of the program the target runs; scripts (`hack/envtest-assets.sh --print-only`) and programs
//     (`go run . -kubeconfig-dirs ...`) run in shell blocks are given flags they define.
//
// Each failure names the file and line, what the page names, and why it does not resolve.
func TestProseNamesResolve(t *testing.T) {
	u := loadUniverse(t)
	mk := readMakefile(t, u.root)
	used := map[string]bool{}
	for _, f := range markdownFiles(t) {
		for _, sp := range f.spans {
			for _, msg := range u.checkSpan(f, sp, mk) {
				if key := f.path + ": " + sp.text; allowed[key] != "" {
					used[key] = true
					continue
				}
				t.Errorf("%s:%d: `%s`: %s", f.path, sp.line, sp.text, msg)
			}
		}
		cwd := f.dir
		for _, sl := range f.shell {
			for _, msg := range u.checkShellLine(f, sl.text, &cwd, mk) {
				t.Errorf("%s:%d: %s: %s", f.path, sl.line, strings.TrimSpace(sl.text), msg)
			}
		}
	}
	for key := range allowed {
		if !used[key] {
			t.Errorf("allowed[%q]: no such span fails any more; remove it from the list", key)
		}
	}
}

// allowed are the spans, as "<file>: <span>", that name what must not resolve, each with the reason. Keep it short:
// a name that does not resolve is almost always a page to fix.
var allowed = map[string]string{
	// The migration guide names the API a program migrates from, which this module no longer has.
	"docs/getting-started/migration.md: WebhookManagedBy(mgr).For(&MyType{})": "controller-runtime v0.24's webhook builder call, which the sentence replaces",
	"docs/getting-started/migration.md: WithCustomPath":                       "removed in controller-runtime v0.25, as the sentence says",
	"docs/getting-started/migration.md: capi.New(localMgr, opts)":             "the previous line's Cluster API constructor, which the sentence replaces",
	"docs/getting-started/migration.md: namespace.New()":                      "the reference's providers/nop, whose package is named namespace by mistake, as the sentence says",
}

// shellCommands start spans that are commands, not names: what they run is checked in shell blocks.
var shellCommands = map[string]bool{
	"go": true, "kubectl": true, "kind": true, "git": true, "cd": true, "docker": true, "bash": true,
	"export": true, "mkdir": true, "cat": true, "curl": true, "golangci-lint": true, "apidiff": true,
}

var (
	repoPathRE   = regexp.MustCompile(`^(\.{1,2}/)?[A-Za-z0-9_-][A-Za-z0-9_.-]*(/[A-Za-z0-9_.-]*)+$`)
	hyphenWordRE = regexp.MustCompile(`[A-Za-z0-9]-[A-Za-z]`)
	// chainRE finds the selector chains of a span that is not Go as a whole: pkg.Name, mgr.GetCluster.
	chainRE = regexp.MustCompile(`(?:^|[^\w.])([a-z][A-Za-z0-9]*(?:\.[A-Z][A-Za-z0-9_]*)+)(\()?`)
)

// checkSpan checks one inline code span and returns what is wrong with it.
func (u *universe) checkSpan(f *markdownFile, sp codeSpan, mk *makefile) []string {
	s := strings.TrimSpace(sp.text)
	if s == "" {
		return nil
	}
	words := shellWords(s)
	switch {
	case len(words) > 0 && words[0] == "make":
		return mk.check(words, u)
	case len(words) > 0 && strings.HasSuffix(words[0], ".sh"):
		return u.checkScript(f, f.dir, words)
	case len(words) > 1 && shellCommands[words[0]]:
		return nil
	case strings.HasPrefix(s, modulePath+"/") || s == modulePath:
		return u.checkImportPath(s)
	case repoPathRE.MatchString(s) && !strings.Contains(strings.SplitN(strings.TrimLeft(s, "./"), "/", 2)[0], "."):
		return u.checkPath(f, s)
	}
	c := &exprChecker{u: u, para: sp.para}
	if looksLikeGo(s) {
		if e, err := parser.ParseExpr(s); err == nil {
			c.eval(e)
			return c.errs
		}
	}
	// Not Go as a whole (a signature, a log line, a placeholder): check the selector chains in it.
	for _, m := range chainRE.FindAllStringSubmatch(s, -1) {
		root := strings.SplitN(m[1], ".", 2)[0]
		if len(u.aliases[root]) == 0 && docVariables[root].pkg == "" {
			continue
		}
		if e, err := parser.ParseExpr(m[1]); err == nil {
			c.eval(e)
		}
	}
	return c.errs
}

// looksLikeGo reports whether a span may be a Go expression rather than a word with hyphens, a path, a host name,
// a placeholder or a format verb.
func looksLikeGo(s string) bool {
	if strings.ContainsAny(s, "#<>~$@%/:;\\") || strings.HasPrefix(s, "-") || strings.HasPrefix(s, ".") {
		return false
	}
	return !hyphenWordRE.MatchString(s)
}

// checkImportPath checks that an import path of this repository is a package or a directory of the repository.
func (u *universe) checkImportPath(s string) []string {
	s = strings.TrimSuffix(strings.TrimSuffix(s, "/..."), "/")
	if u.ours[s] {
		return nil
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(s, modulePath), "/")
	if _, err := os.Stat(filepath.Join(u.root, rel)); err == nil {
		return nil
	}
	return []string{fmt.Sprintf("%s is not a package or directory of this repository", s)}
}

// checkPath checks a path: a file or directory relative to the repository root, the page's directory or a module
// of the repository (a provider's `config/rbac`), or such a package followed by one of its names
// (`test/integration/harness.SharedGoroutines`), or the tail of a package of the universe (controller-runtime's
// `pkg/cache`), or an output of make (`bin/`, `bench/results/`: the Makefile or .gitignore names it).
func (u *universe) checkPath(f *markdownFile, s string) []string {
	if strings.ContainsAny(s, "*") {
		return nil
	}
	bases := append([]string{u.root, f.dir}, u.moduleRoots()...)
	exists := func(p string) (string, bool) {
		for _, b := range bases {
			if _, err := os.Stat(filepath.Join(b, p)); err == nil {
				return filepath.Join(b, p), true
			}
		}
		return "", false
	}
	if _, ok := exists(s); ok {
		return nil
	}
	trimmed := strings.TrimSuffix(s, "/")
	for path := range u.pkgs {
		if strings.HasSuffix(path, "/"+trimmed) {
			return nil
		}
	}
	if u.madeBy(trimmed) {
		return nil
	}
	dir, last := filepath.Split(trimmed)
	if i := strings.Index(last, "."); i > 0 && dir != "" {
		if abs, ok := exists(dir + last[:i]); ok {
			rel, _ := filepath.Rel(u.root, abs)
			pkgPath := modulePath + "/" + filepath.ToSlash(rel)
			name := last[i+1:]
			if p := u.pkgs[pkgPath]; p != nil && p.Scope().Lookup(name) != nil {
				return nil
			}
			return []string{fmt.Sprintf("package %s has no %s", pkgPath, name)}
		}
	}
	return []string{fmt.Sprintf("no such file or directory (looked relative to the repository root, %s and every module)", f.path)}
}

// moduleRoots returns the directories of the repository's modules.
func (u *universe) moduleRoots() []string {
	var out []string
	_ = filepath.WalkDir(u.root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin") && path != u.root {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" {
			out = append(out, filepath.Dir(path))
		}
		return nil
	})
	return out
}

// madeBy reports whether a path that does not exist is an output of the build: the Makefile or .gitignore names it.
func (u *universe) madeBy(path string) bool {
	for _, name := range []string{"Makefile", ".gitignore"} {
		data, err := os.ReadFile(filepath.Join(u.root, name))
		if err == nil && regexp.MustCompile(`(^|[\s/)])`+regexp.QuoteMeta(path)+`($|[\s/])`).Match(data) {
			return true
		}
	}
	return false
}

// checkShellLine checks the commands of one line of a shell block: make targets and variables, the flags given to
// scripts and to `go run`. cwd follows the block's `cd` commands.
func (u *universe) checkShellLine(f *markdownFile, line string, cwd *string, mk *makefile) []string {
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "$ "))
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	var errs []string
	for _, cmd := range commands(line) {
		for len(cmd) > 0 && regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`).MatchString(cmd[0]) {
			cmd = cmd[1:] // environment assignments
		}
		if len(cmd) == 0 {
			continue
		}
		switch {
		case cmd[0] == "cd" && len(cmd) > 1:
			for _, base := range []string{*cwd, u.root, f.dir} {
				if d := filepath.Join(base, cmd[1]); isDir(d) {
					*cwd = d
					break
				}
			}
		case cmd[0] == "make":
			errs = append(errs, mk.check(cmd, u)...)
		case strings.HasSuffix(cmd[0], ".sh"):
			errs = append(errs, u.checkScript(f, *cwd, cmd)...)
		case cmd[0] == "bash" && len(cmd) > 1 && strings.HasSuffix(cmd[1], ".sh"):
			errs = append(errs, u.checkScript(f, *cwd, cmd[1:])...)
		case cmd[0] == "go" && len(cmd) > 2 && cmd[1] == "run":
			errs = append(errs, u.checkGoRun(*cwd, cmd[2:])...)
		}
	}
	return errs
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// checkScript checks that a script exists and handles the flags it is given.
func (u *universe) checkScript(f *markdownFile, cwd string, cmd []string) []string {
	var script string
	for _, base := range []string{cwd, f.dir, u.root} {
		if p := filepath.Join(base, cmd[0]); !isDir(p) {
			if _, err := os.Stat(p); err == nil {
				script = p
				break
			}
		}
	}
	if script == "" {
		return []string{fmt.Sprintf("script %s not found", cmd[0])}
	}
	data, err := os.ReadFile(script)
	if err != nil {
		return []string{err.Error()}
	}
	text := string(data)
	var errs []string
	for _, w := range cmd[1:] {
		if !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
			continue
		}
		flag, _, _ := strings.Cut(w, "=")
		handled := false
		for _, form := range []string{flag + ")", flag + "|", flag + "=", `"` + flag + `"`, "'" + flag + "'", "|" + flag} {
			if strings.Contains(text, form) {
				handled = true
				break
			}
		}
		if !handled {
			errs = append(errs, fmt.Sprintf("%s does not handle the flag %s", cmd[0], flag))
		}
	}
	return errs
}

// checkGoRun checks the flags given to `go run <package> <flags>`.
func (u *universe) checkGoRun(cwd string, args []string) []string {
	var pkg string
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			pkg, args = a, args[i+1:]
			break
		}
	}
	if pkg == "" || !strings.HasPrefix(pkg, ".") {
		return nil
	}
	dir := filepath.Join(cwd, pkg)
	if !isDir(dir) {
		dir = filepath.Join(u.root, pkg) // a README's `go run ./examples/x` is run from the repository root
	}
	if !isDir(dir) {
		rel, _ := filepath.Rel(u.root, cwd)
		return []string{fmt.Sprintf("go run %s: no such directory in %s or the repository root", pkg, rel)}
	}
	return u.checkProgramFlags(dir, args)
}

// checkProgramFlags checks that every flag among args is defined by the Go program in dir.
func (u *universe) checkProgramFlags(dir string, args []string) []string {
	defined, err := u.programFlags(dir)
	if err != nil {
		return []string{err.Error()}
	}
	var errs []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !defined[name] {
			rel, _ := filepath.Rel(u.root, dir)
			errs = append(errs, fmt.Sprintf("the program in %s has no flag -%s", rel, name))
		}
	}
	return errs
}

// flagDefiners are the methods of flag.FlagSet (and the functions of package flag) that define a flag, whose first
// string argument is its name.
var flagDefiners = map[string]bool{
	"Bool": true, "BoolVar": true, "BoolFunc": true, "Duration": true, "DurationVar": true, "Float64": true,
	"Float64Var": true, "Func": true, "Int": true, "Int64": true, "Int64Var": true, "IntVar": true, "String": true,
	"StringVar": true, "TextVar": true, "Uint": true, "Uint64": true, "Uint64Var": true, "UintVar": true, "Var": true,
}

// programFlags returns the flags the non-test Go files of dir define, and those of controller-runtime's zap
// options if the program binds them (opts.BindFlags).
func (u *universe) programFlags(dir string) (map[string]bool, error) {
	out := map[string]bool{}
	binds, err := u.flagsDefinedIn(dir, out)
	if err != nil {
		return nil, err
	}
	if binds {
		if zap := u.pkgs["sigs.k8s.io/controller-runtime/pkg/log/zap"]; zap != nil {
			if obj := zap.Scope().Lookup("Options"); obj != nil {
				if _, err := u.flagsDefinedIn(filepath.Dir(u.fset.Position(obj.Pos()).Filename), out); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// flagsDefinedIn adds the flags defined by the non-test Go files of dir to out, and reports whether they call a
// BindFlags method.
func (u *universe) flagsDefinedIn(dir string, out map[string]bool) (bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	binds := false
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return false, err
		}
		binds = binds || strings.Contains(string(data), ".BindFlags(")
		f, err := parser.ParseFile(token.NewFileSet(), e.Name(), data, parser.SkipObjectResolution)
		if err != nil {
			return false, err
		}
		for _, name := range u.definedFlags(f) {
			out[name] = true
		}
	}
	return binds, nil
}

// commands splits a shell line into simple commands (at &&, ||, ; and |) and their words. A command substitution,
// $(...), is a command of its own, just before the command it is part of.
func commands(line string) [][]string {
	substRE := regexp.MustCompile(`\$\(([^()]*)\)`)
	var substs []string
	line = substRE.ReplaceAllStringFunc(line, func(m string) string {
		substs = append(substs, substRE.FindStringSubmatch(m)[1])
		return fmt.Sprintf("\x00%d\x00", len(substs)-1)
	})
	var out [][]string
	var cmd []string
	end := func() {
		for _, w := range cmd {
			for _, m := range regexp.MustCompile("\x00(\\d+)\x00").FindAllStringSubmatch(w, -1) {
				i, _ := strconv.Atoi(m[1])
				out = append(out, commands(substs[i])...)
			}
		}
		if len(cmd) > 0 {
			out = append(out, cmd)
		}
		cmd = nil
	}
	for _, w := range shellWords(line) {
		switch w {
		case "&&", "||", ";", "|":
			end()
		default:
			cmd = append(cmd, w)
		}
	}
	end()
	return out
}

// shellWords splits s into words as a shell would, with single and double quotes; the operators &&, ||, ; and |
// are words of their own.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote byte
	flush := func() {
		if inWord {
			out = append(out, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			} else {
				cur.WriteByte(ch)
			}
		case ch == '\'' || ch == '"':
			quote, inWord = ch, true
		case ch == ' ' || ch == '\t':
			flush()
		case ch == ';' || ch == '|' || ch == '&':
			flush()
			op := string(ch)
			if i+1 < len(s) && (s[i+1] == '&' || s[i+1] == '|') && ch != ';' {
				op += string(s[i+1])
				i++
			}
			out = append(out, op)
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	flush()
	return out
}

// TestProseCheckerFindsWhatIsWrong runs the checks of TestProseNamesResolve on a page written for it: each line names
// something wrong and must fail with the given reason, and the lines that name what exists must pass.
func TestProseCheckerFindsWhatIsWrong(t *testing.T) {
	u := loadUniverse(t)
	mk := readMakefile(t, u.root)
	wrong := map[string]string{
		"`mchandler.ForCluster(name, h)`":              "the order of the arguments is wrong",
		"`mcbuilder.WebhookManagedBy(mgr)`":            "takes 2 argument(s), the page passes 1",
		"`mgr.GetClient()`":                            "has no field or method GetClient",
		"`mgr.GetLocalManager().GetNothing()`":         "has no field or method GetNothing",
		"`cl.GetEventRecorderFor(\"c\")`":              "is deprecated",
		"`mcmanager.NoSuchName`":                       "package sigs.k8s.io/multicluster-runtime/pkg/manager has no NoSuchName",
		"`NoSuchNameAnywhere`":                         "names nothing",
		"`sanitize.DNS1123(1)`":                        "1 is not a string",
		"`TestNoSuchTest`":                             "no test function",
		"`pkg/nosuch`":                                 "no such file or directory",
		"`test/integration/harness.NoSuchName`":        "has no NoSuchName",
		"`make nosuch`":                                "the Makefile has no target nosuch",
		"`make demo NOSUCH_VAR=1`":                     "the Makefile has no variable NOSUCH_VAR",
		"`make demo DEMO_FLAGS='-clusters 5 -nosuch'`": "has no flag -nosuch",
		"`hack/envtest-assets.sh --nosuch`":            "does not handle the flag --nosuch",
	}
	right := []string{
		"`mchandler.ForCluster(h, name)`", "`mcbuilder.WebhookManagedBy(mgr, obj)`", "`mgr.GetLocalManager().GetClient()`",
		"`cl.GetEventRecorder(\"c\")`", "`mcreconcile.Request{ClusterName: \"east\"}`", "`pkg/clusters`",
		"`make demo DEMO_FLAGS='-clusters 5 -duration 2m'`", "`test/integration/harness.SharedGoroutines`",
		"`GetEventRecorderFor` is deprecated, `cl.GetEventRecorderFor(\"c\")` too",
	}
	var page strings.Builder
	for span := range wrong {
		page.WriteString(span + "\n\n")
	}
	for _, span := range right {
		page.WriteString(span + "\n\n")
	}
	page.WriteString("```sh\ncd examples/file && go run . -kubeconfig-dirs d -nosuch\nmake demo DEMO_FLAGS=-keep\n```\n")
	f := &markdownFile{path: "docs/test.md", dir: filepath.Join(u.root, "docs")}
	f.parse(page.String())
	lines := strings.Split(page.String(), "\n")
	got := map[string][]string{}
	for _, sp := range f.spans {
		got[lines[sp.line-1]] = append(got[lines[sp.line-1]], u.checkSpan(f, sp, mk)...)
	}
	cwd := f.dir
	for _, sl := range f.shell {
		got[sl.text] = append(got[sl.text], u.checkShellLine(f, sl.text, &cwd, mk)...)
	}
	for span, want := range wrong {
		if !strings.Contains(strings.Join(got[span], "\n"), want) {
			t.Errorf("%s: want a failure saying %q, got %q", span, want, got[span])
		}
	}
	for _, span := range right {
		if len(got[span]) > 0 {
			t.Errorf("%s: want no failure, got %q", span, got[span])
		}
	}
	if msgs := got["cd examples/file && go run . -kubeconfig-dirs d -nosuch"]; len(msgs) != 1 || !strings.Contains(msgs[0], "examples/file has no flag -nosuch") {
		t.Errorf("go run with an unknown flag: want one failure naming -nosuch, got %q", msgs)
	}
	if msgs := got["make demo DEMO_FLAGS=-keep"]; len(msgs) > 0 {
		t.Errorf("make demo DEMO_FLAGS=-keep: want no failure, got %q", msgs)
	}
}
