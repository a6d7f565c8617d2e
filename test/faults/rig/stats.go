// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package rig

import (
	"fmt"
	"slices"
	"time"
)

// Summary describes a set of durations.
type Summary struct {
	N                  int
	P50, P90, P99, Max time.Duration
}

// Summarize computes the summary of ds.
func Summarize(ds []time.Duration) Summary {
	if len(ds) == 0 {
		return Summary{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) time.Duration {
		i := int(q * float64(len(s)-1))
		return s[i]
	}
	return Summary{N: len(s), P50: at(0.50), P90: at(0.90), P99: at(0.99), Max: s[len(s)-1]}
}

func (s Summary) String() string {
	if s.N == 0 {
		return "no samples"
	}
	return fmt.Sprintf("p50 %s, p90 %s, p99 %s, max %s (n=%d)", round(s.P50), round(s.P90), round(s.P99), round(s.Max), s.N)
}

// round rounds a duration for printing: to the millisecond, or to the 10µs under a millisecond.
func round(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Millisecond)
}
