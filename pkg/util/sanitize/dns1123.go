// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sanitize

import (
	"fmt"
	"hash/fnv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// fallback is the name DNS1123 returns for a string with no letter or digit.
const fallback = "unknown"

// DNS1123 returns a name made from s that is a valid DNS-1123 subdomain, as Kubernetes validates object names
// (k8s.io/apimachinery/pkg/util/validation.IsDNS1123Subdomain), and, when it contains no dot, also a valid DNS-1123
// label (IsDNS1123Label: at most 63 characters). It is a pure function: the same s always gives the same name, and
// a name it returns is returned unchanged when given again.
//
// Each dot-separated part of s becomes one label: upper-case ASCII letters are lower-cased, every run of other
// characters than a-z, 0-9 and '-' becomes one '-', and leading and trailing '-' are dropped; empty labels are
// dropped. A valid DNS-1123 label, and a valid subdomain with a dot, therefore come back as they are. A name longer
// than its limit (63 characters without a dot, 253 with) is cut and ends in '-' and eight hexadecimal digits of a
// hash of s, so that long names that share a prefix stay distinct. A string with no letter or digit gives
// "unknown". Different strings can give the same name when they differ only in case or in invalid characters.
func DNS1123(s string) string {
	var labels []string
	for part := range strings.SplitSeq(s, ".") {
		if l := label(part); l != "" {
			labels = append(labels, l)
		}
	}
	name := strings.Join(labels, ".")
	// Shortening a name with dots can leave one without, whose limit is lower: hence a loop (of two rounds at most).
	for len(name) > maxLength(name) {
		name = shorten(name, maxLength(name), s)
	}
	if name == "" {
		return fallback
	}
	return name
}

// maxLength is the limit of name's length: that of a DNS-1123 label without a dot, of a subdomain with one.
func maxLength(name string) int {
	if strings.Contains(name, ".") {
		return validation.DNS1123SubdomainMaxLength
	}
	return validation.DNS1123LabelMaxLength
}

// label returns part lower-cased, with every run of characters that may not appear in a DNS-1123 label replaced by
// one '-', and without leading or trailing '-'.
func label(part string) string {
	var b strings.Builder
	b.Grow(len(part))
	inRun := false
	for _, r := range part {
		switch {
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + ('a' - 'A'))
			inRun = false
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			b.WriteRune(r)
			inRun = false
		case !inRun:
			b.WriteByte('-')
			inRun = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// shorten cuts name to limit characters, ending it in '-' and the hash of the original string s.
func shorten(name string, limit int, s string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	sum := fmt.Sprintf("%08x", h.Sum32())
	head := strings.TrimRight(name[:limit-len(sum)-1], "-.")
	if head == "" {
		return sum
	}
	return head + "-" + sum
}
