// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package harness

import (
	"slices"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
)

// LogBuffer keeps the lines logged through its Logger, for tests that check what a component logged. It is safe
// for concurrent use.
type LogBuffer struct {
	mu    sync.Mutex
	lines []string
}

// Logger returns a logger that appends every line, of every verbosity up to 1, to b.
func (b *LogBuffer) Logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.lines = append(b.lines, prefix+" "+args)
	}, funcr.Options{Verbosity: 1})
}

// Lines returns the lines logged so far.
func (b *LogBuffer) Lines() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.lines)
}

// Find returns the first line that contains every one of substrings, or "" if none does.
func (b *LogBuffer) Find(substrings ...string) string { return FindLine(b.Lines(), substrings...) }

// FindLine returns the first of lines that contains every one of substrings, or "" if none does.
func FindLine(lines []string, substrings ...string) string {
	for _, line := range lines {
		found := true
		for _, s := range substrings {
			found = found && strings.Contains(line, s)
		}
		if found {
			return line
		}
	}
	return ""
}
