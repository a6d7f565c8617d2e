// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"slices"
	"testing"
)

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		in           string
		width, lines int
		want         []string
	}{
		{"no burst", 21, 3, []string{"no burst"}},
		{"update burst, priority queue", 21, 3, []string{"update burst,", "priority queue"}},
		{"a b c d", 1, 3, []string{"a", "b", "c d"}},
		{"averyveryverylongword b", 5, 3, []string{"averyveryverylongword", "b"}},
		{"", 10, 3, []string{""}},
	} {
		if got := wrap(tc.in, tc.width, tc.lines); !slices.Equal(got, tc.want) {
			t.Errorf("wrap(%q, %d, %d) = %q, want %q", tc.in, tc.width, tc.lines, got, tc.want)
		}
	}
}
