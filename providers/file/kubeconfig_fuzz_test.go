// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
)

// The fuzz targets of the file provider's parsers of user input: kubeconfig files (with the redaction of
// credentials from their errors) and the options naming files, directories and globs. Their seed corpora are in
// testdata/fuzz; run one for longer with, for example,
//
//	go test -run '^$' -fuzz '^FuzzParseKubeconfig$' -fuzztime 5m .

// fuzzPath is the path the fuzzed kubeconfigs are parsed as.
const fuzzPath = "/fuzz/dir/fuzz.kubeconfig"

// redactionMarker is what redact puts in place of a credential.
const redactionMarker = "[redacted]"

// Whatever the file holds, parsing it never panics, and no error it yields shows a credential of the file. Parsed
// under the zero KubeconfigPolicy, no config it yields runs an exec plugin or an auth-provider, reads a file or
// talks to a server it does not verify, and each context the policy refuses has an error naming the option that
// would allow it.
func FuzzParseKubeconfig(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		secrets := credentialValues(data)
		for _, policy := range []*clusters.KubeconfigPolicy{nil, {}} {
			configs, contextErrs, err := parseKubeconfig(fuzzPath, data, policy)
			if err != nil {
				if configs != nil || contextErrs != nil {
					t.Fatalf("an error and results: %v", err)
				}
				checkRedacted(t, err.Error(), secrets)
				return
			}
			for name, cerr := range contextErrs {
				if _, ok := configs[name]; ok {
					t.Fatalf("context %q has both a config and an error", name)
				}
				checkRedacted(t, cerr.Error(), secrets)
				if errors.Is(cerr, clusters.ErrKubeconfigRefused) && !strings.Contains(cerr.Error(), "(set KubeconfigPolicy.") {
					t.Fatalf("context %q: the refusal %q names no option", name, cerr)
				}
			}
			for name, cfg := range configs {
				if name == "" || cfg == nil {
					t.Fatalf("context %q has config %v", name, cfg)
				}
				if policy == nil {
					continue
				}
				if err := policy.CheckRESTConfig(cfg); err != nil {
					t.Fatalf("context %q: the zero policy let through: %v", name, err)
				}
			}
		}
	})
}

// checkRedacted fails the test if msg shows one of the secrets (those the redaction looks for: 4 characters or
// more, and not found in the redaction's own marker or in the path, which a message may name).
func checkRedacted(t *testing.T, msg string, secrets []string) {
	t.Helper()
	for _, s := range secrets {
		if len(s) < 4 || strings.Contains(redactionMarker, s) || strings.Contains(fuzzPath, s) {
			continue
		}
		if strings.Contains(msg, s) {
			t.Fatalf("the error %q shows the credential %q", msg, s)
		}
	}
}

// oldCredentialValue is how credentials were found before credentialValues: one regular expression over the whole
// file, which took seconds on a file of a few MB. The new way must find everything it found.
var oldCredentialValue = regexp.MustCompile(`(?m)["']?(` + strings.Join(credentialKeys, "|") + `)["']?\s*:\s*["']?([^"'\s,}\]]+)`)

// credentialValues finds every credential the whole-file regular expression found, and redact removes every one
// of them from any message.
func FuzzRedact(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, msg string) {
		found := credentialValues(data)
		for _, m := range oldCredentialValue.FindAllSubmatch(data, -1) {
			if v := string(m[2]); !slices.Contains(found, v) {
				t.Fatalf("credentialValues missed %q, which the regular expression over the file finds (found %q)", v, found)
			}
		}
		err := redact(errorString(msg), data)
		checkRedacted(t, err.Error(), found)
	})
}

type errorString string

func (e errorString) Error() string { return string(e) }

// A file of a few MB of garbage is rejected in well under a second: the scan that reads it holds up every other
// file's changes meanwhile. Finding credentials with one regular expression over the whole file took 1.6 s for
// 5 MB (minutes with the race detector).
func TestParseHugeKubeconfig(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 5))
	data := make([]byte, 5<<20)
	for i := range data {
		data[i] = byte(rnd.IntN(256))
	}
	// A few credential fields, so that the search has something to find.
	copy(data[1000:], "token: s3cr3t-value-0123456789\n")
	copy(data[4<<20:], `"client-key-data": "a2V5LWRhdGEtMDEyMzQ1Njc4OQ=="`)
	began := time.Now()
	_, _, err := parseKubeconfig(fuzzPath, data, nil)
	took := time.Since(began)
	if err == nil {
		t.Fatal("5 MB of garbage parsed")
	}
	if took > 500*time.Millisecond {
		t.Errorf("parsing 5 MB of garbage took %s; want well under a second", took)
	}
	if got := credentialValues(data); !slices.Contains(got, "s3cr3t-value-0123456789") ||
		!slices.Contains(got, "a2V5LWRhdGEtMDEyMzQ1Njc4OQ==") {
		t.Errorf("credentialValues found %q", got)
	}
}

// Whatever the options name, completing them never panics; valid ones yield absolute, clean paths without
// duplicates, and a glob matches exactly the names filepath.Match matches.
func FuzzOptions(f *testing.F) {
	f.Fuzz(func(t *testing.T, file, dir, glob, separator, name string) {
		s, err := Options{
			KubeconfigFiles: []string{file, file},
			KubeconfigDirs:  []string{dir},
			KubeconfigGlobs: []string{glob},
			Separator:       separator,
		}.complete()
		if err != nil {
			if glob == "" {
				t.Fatalf("options without a glob rejected: %v", err)
			}
			return
		}
		for _, p := range append(slices.Clone(s.files), s.dirs...) {
			if !filepath.IsAbs(p) || filepath.Clean(p) != p {
				t.Fatalf("path %q is not absolute and clean", p)
			}
		}
		if len(s.files) > 1 && s.files[0] == s.files[1] {
			t.Fatalf("duplicate files %q", s.files)
		}
		if s.separator == "" {
			t.Fatal("no separator")
		}
		if glob != "" {
			want, _ := filepath.Match(glob, name)
			if got := s.matches(name); got != want {
				t.Fatalf("glob %q on %q: matches %v, filepath.Match %v", glob, name, got, want)
			}
		}
		if utf8.ValidString(name) && s.clusterName("/p", name).String() != "/p"+s.separator+name {
			t.Fatalf("cluster name of context %q: %q", name, s.clusterName("/p", name))
		}
	})
}
