// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package rig

import (
	"fmt"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
)

// LogCapture receives every log line of the process (controller-runtime's and client-go's), renders it as funcr
// does, searches it for the registered credentials as it is written, and keeps the lines up to a verbosity in
// memory, at most a number of them (the oldest are dropped first). It is safe for concurrent use.
type LogCapture struct {
	verbosity int
	keepLevel int
	maxLines  int
	creds     *Credentials

	mu      sync.Mutex
	lines   []string
	dropped int
	total   int
	leaks   []string
	echo    func(string)
}

// NewLogCapture returns a capture whose logger is enabled up to verbosity, which keeps the lines of verbosity up to
// keepLevel (error lines always), at most maxLines of them, and which searches every line for creds.
func NewLogCapture(verbosity, keepLevel, maxLines int, creds *Credentials) *LogCapture {
	return &LogCapture{verbosity: verbosity, keepLevel: keepLevel, maxLines: maxLines, creds: creds}
}

// Logger returns a logger that writes to the capture.
func (c *LogCapture) Logger() logr.Logger {
	return logr.New(&captureSink{c: c, f: funcr.NewFormatter(funcr.Options{Verbosity: c.verbosity})})
}

// Echo sends every line, as it is captured, to fn as well (for example to print it); nil stops it.
func (c *LogCapture) Echo(fn func(string)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.echo = fn
}

func (c *LogCapture) write(level int, isError bool, prefix, args string) {
	line := args
	if prefix != "" {
		line = prefix + " " + args
	}
	leak := c.creds.Find(line)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total++
	if leak != "" {
		c.leaks = append(c.leaks, fmt.Sprintf("credential %s in line %q", leak, line))
	}
	if c.echo != nil {
		c.echo(line)
	}
	if !isError && level > c.keepLevel {
		return
	}
	if c.maxLines > 0 && len(c.lines) >= c.maxLines {
		drop := len(c.lines) / 4
		c.lines = append(c.lines[:0], c.lines[drop:]...)
		c.dropped += drop
	}
	c.lines = append(c.lines, line)
}

// Lines returns the lines kept so far.
func (c *LogCapture) Lines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.lines...)
}

// Grep returns the kept lines that contain every one of the words.
func (c *LogCapture) Grep(words ...string) []string {
	var out []string
	for _, line := range c.Lines() {
		if containsAll(line, words...) {
			out = append(out, line)
		}
	}
	return out
}

// Total returns how many lines were written, kept or not.
func (c *LogCapture) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Leaks returns a description of every line that carried a registered credential, with the credential's name.
// Lines are searched as they are written, for the credentials registered at that time; SearchKept searches the kept
// lines again for credentials registered later.
func (c *LogCapture) Leaks() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.leaks...)
}

// SearchKept searches the kept lines for every credential registered now, and returns the leaks found.
func (c *LogCapture) SearchKept() []string {
	var out []string
	for _, line := range c.Lines() {
		if leak := c.creds.Find(line); leak != "" {
			out = append(out, fmt.Sprintf("credential %s in line %q", leak, line))
		}
	}
	return out
}

func containsAll(s string, words ...string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// captureSink is a logr.LogSink writing to a LogCapture, formatting like funcr.
type captureSink struct {
	c *LogCapture
	f funcr.Formatter
}

var (
	_ logr.LogSink          = &captureSink{}
	_ logr.CallDepthLogSink = &captureSink{}
)

func (s *captureSink) Init(info logr.RuntimeInfo) { s.f.Init(info) }

func (s *captureSink) Enabled(level int) bool { return s.f.Enabled(level) }

func (s *captureSink) Info(level int, msg string, kv ...any) {
	prefix, args := s.f.FormatInfo(level, msg, kv)
	s.c.write(level, false, prefix, args)
}

func (s *captureSink) Error(err error, msg string, kv ...any) {
	prefix, args := s.f.FormatError(err, msg, kv)
	s.c.write(0, true, prefix, args)
}

func (s *captureSink) WithValues(kv ...any) logr.LogSink {
	n := &captureSink{c: s.c, f: s.f}
	n.f.AddValues(kv)
	return n
}

func (s *captureSink) WithName(name string) logr.LogSink {
	n := &captureSink{c: s.c, f: s.f}
	n.f.AddName(name)
	return n
}

func (s *captureSink) WithCallDepth(depth int) logr.LogSink {
	n := &captureSink{c: s.c, f: s.f}
	n.f.AddCallDepth(depth)
	return n
}
