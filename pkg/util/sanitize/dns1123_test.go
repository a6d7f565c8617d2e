// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sanitize_test

import (
	"fmt"
	"hash/fnv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	"sigs.k8s.io/multicluster-runtime/pkg/util/sanitize"
)

func TestDNS1123(t *testing.T) {
	long := strings.Repeat("a", 70)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "a valid label is kept", in: "cluster-1", want: "cluster-1"},
		{name: "a valid subdomain is kept", in: "east.fleet.example", want: "east.fleet.example"},
		{name: "upper case is lowered", in: "Prod-EU", want: "prod-eu"},
		{name: "a run of invalid characters becomes one dash", in: "team_a/ns  b", want: "team-a-ns-b"},
		{name: "dashes at either end are dropped", in: "--a--", want: "a"},
		{name: "empty labels are dropped", in: ".a..b.", want: "a.b"},
		{name: "labels made only of invalid characters are dropped", in: "a.__.b", want: "a.b"},
		{name: "a multi-cluster name", in: "kind#dev+admin@dev", want: "kind-dev-admin-dev"},
		{name: "a kubeconfig path", in: "/etc/fleet/Prod.kubeconfig+ctx", want: "etc-fleet-prod.kubeconfig-ctx"},
		{name: "non-ASCII letters are invalid", in: "zürich", want: "z-rich"},
		{name: "the empty string", in: "", want: "unknown"},
		{name: "nothing valid", in: "._-/", want: "unknown"},
		{name: "a long label is cut and hashed", in: long, want: strings.Repeat("a", 54) + "-" + hashOf(t, long)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sanitize.DNS1123(tt.in); got != tt.want {
				t.Errorf("DNS1123(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// hashOf returns the suffix DNS1123 gives a string it shortens: its 32-bit FNV-1a hash in hexadecimal.
func hashOf(t *testing.T, s string) string {
	t.Helper()
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return fmt.Sprintf("%08x", h.Sum32())
}

// Long names that share a prefix stay distinct, and each is as long as its limit allows.
func TestDNS1123LongNamesStayDistinct(t *testing.T) {
	prefix := strings.Repeat("x", 80)
	labels := map[string]string{}
	subdomains := map[string]string{}
	for _, suffix := range []string{"a", "b", "c"} {
		label := sanitize.DNS1123(prefix + suffix)
		if len(label) != validation.DNS1123LabelMaxLength {
			t.Errorf("DNS1123 of a long label gave %d characters, want %d", len(label), validation.DNS1123LabelMaxLength)
		}
		labels[label] = suffix
		sub := sanitize.DNS1123(strings.Repeat(prefix+".", 4) + suffix)
		if len(sub) > validation.DNS1123SubdomainMaxLength || !strings.Contains(sub, ".") {
			t.Errorf("DNS1123 of a long subdomain gave %q", sub)
		}
		subdomains[sub] = suffix
	}
	if len(labels) != 3 || len(subdomains) != 3 {
		t.Errorf("long names that differ at their end collide: %v %v", labels, subdomains)
	}
}

// FuzzDNS1123 checks the guarantees for any string: a valid subdomain, a valid label when without a dot, the same
// result for the same input, a result that is its own result, and valid names kept.
func FuzzDNS1123(f *testing.F) {
	for _, s := range []string{"", "a", "A.b", "..", "-a-", "kind#dev", strings.Repeat("ab.", 100), strings.Repeat("x", 300) + ".y", "é_Ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := sanitize.DNS1123(s)
		if errs := validation.IsDNS1123Subdomain(got); len(errs) > 0 {
			t.Fatalf("DNS1123(%q) = %q, not a DNS-1123 subdomain: %v", s, got, errs)
		}
		if !strings.Contains(got, ".") {
			if errs := validation.IsDNS1123Label(got); len(errs) > 0 {
				t.Fatalf("DNS1123(%q) = %q, without a dot but not a DNS-1123 label: %v", s, got, errs)
			}
		}
		if again := sanitize.DNS1123(s); again != got {
			t.Fatalf("DNS1123(%q) gave %q, then %q", s, got, again)
		}
		if twice := sanitize.DNS1123(got); twice != got {
			t.Fatalf("DNS1123(%q) = %q, but DNS1123(%q) = %q", s, got, got, twice)
		}
		validLabel := len(validation.IsDNS1123Label(s)) == 0
		validSubdomain := strings.Contains(s, ".") && len(validation.IsDNS1123Subdomain(s)) == 0
		if (validLabel || validSubdomain) && got != s {
			t.Fatalf("DNS1123 changed the valid name %q to %q", s, got)
		}
	})
}
