// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package leases

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Name returns the name of the Lease prefix-suffix: exactly that if it is a valid object name (a DNS subdomain),
// otherwise a valid name made of it (lower case, other characters replaced by '-', shortened) followed by a hash
// of the suffix, so that different suffixes keep different names.
func Name(prefix, suffix string) string {
	name := prefix + "-" + suffix
	if len(validation.IsDNS1123Subdomain(name)) == 0 {
		return name
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(suffix))
	tail := fmt.Sprintf("-%08x", h.Sum32())

	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-.")
	if limit := validation.DNS1123SubdomainMaxLength - len(tail); len(s) > limit {
		s = strings.TrimRight(s[:limit], "-.")
	}
	if s == "" {
		s = "lease"
	}
	return s + tail
}

// LabelValue returns v if it is a valid label value, otherwise a valid value made of its hash.
func LabelValue(v string) string {
	if len(validation.IsValidLabelValue(v)) == 0 {
		return v
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(v))
	return fmt.Sprintf("h-%016x", h.Sum64())
}

// EncodeList encodes a set of names for an annotation: a sorted JSON array, readable with kubectl.
func EncodeList(names []string) string {
	s := slices.Clone(names)
	slices.Sort(s)
	s = slices.Compact(s)
	if s == nil {
		s = []string{}
	}
	out, err := json.Marshal(s)
	if err != nil { // strings always marshal
		return "[]"
	}
	return string(out)
}

// DecodeList decodes an annotation written by EncodeList; a missing or malformed annotation is the empty list.
func DecodeList(v string) []string {
	if v == "" {
		return nil
	}
	var out []string
	if err := json.Unmarshal([]byte(v), &out); err != nil {
		return nil
	}
	return out
}
