// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A note longer than the events API accepts is cut at a rune boundary and marked; shorter ones are kept whole.
// (Moved here from the cluster-inventory-api provider, whose Events the engager now records.)
func TestEventNote(t *testing.T) {
	if got := eventNote("cluster fleet/east: unreachable"); got != "cluster fleet/east: unreachable" {
		t.Errorf("short note = %q", got)
	}
	for _, long := range []string{strings.Repeat("a", 5000), strings.Repeat("é", 700), strings.Repeat("a", maxEventNote)} {
		got := eventNote(long)
		if len(got) > maxEventNote || !utf8.ValidString(got) {
			t.Errorf("note of %d bytes: got %d bytes, valid UTF-8 %v", len(long), len(got), utf8.ValidString(got))
		}
		if len(long) > maxEventNote && !strings.HasSuffix(got, "...") {
			t.Errorf("a cut note does not end in ...: %q", got[len(got)-10:])
		}
		if len(long) <= maxEventNote && got != long {
			t.Error("a note that fits was changed")
		}
	}
}
