// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"os"
	"runtime"
	"testing"
)

func TestParseStat(t *testing.T) {
	// A command name with spaces and a parenthesis, as proc(5) allows: fields count from the last ')'.
	line := "4242 (kube (api) server) S 17 4242 17 0 -1 4194560 100 0 0 0 250 31 0 0 20 0 12 0 99 0 0\n"
	command, ppid, ticks, ok := parseStat(line)
	if !ok || command != "kube (api) server" || ppid != 17 || ticks != 281 {
		t.Errorf("parseStat = %q, %d, %d, %v; want \"kube (api) server\", 17, 281, true", command, ppid, ticks, ok)
	}
	for _, bad := range []string{"", "4242 (x) S", "4242 (x) S notapid 1 2 3 4 5 6 7 8 9 10 11 12", "4242 x) S"} {
		if _, _, _, ok := parseStat(bad); ok {
			t.Errorf("parseStat(%q) succeeded", bad)
		}
	}
}

func TestReadCPUTimes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("children's CPU times are read from /proc")
	}
	t0 := readCPUTimes()
	// Spend CPU until getrusage shows it (its resolution is a tick at worst); a million rounds at most.
	x := uint64(os.Getpid())
	d := readCPUTimes().sub(t0)
	for i := 0; i < 1e6 && d.self <= 0; i++ {
		for range 1000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		d = readCPUTimes().sub(t0)
	}
	if x == 0 {
		t.Log(x) // keeps the loop from being optimised away
	}
	if !d.known || d.self <= 0 {
		t.Errorf("CPU time spent = %+v; want a positive time of this process, children known", d)
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{9, 1, 5}, 5},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
