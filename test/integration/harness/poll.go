// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package harness

import (
	"sync"
	"testing"
	"time"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
)

// DefaultTimeout is mcenvtest.DefaultTimeout.
const DefaultTimeout = mcenvtest.DefaultTimeout

// Eventually is mcenvtest.Eventually.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	mcenvtest.Eventually(t, timeout, what, cond)
}

// Consistently is mcenvtest.Consistently.
func Consistently(t testing.TB, duration time.Duration, what string, cond func() bool) {
	t.Helper()
	mcenvtest.Consistently(t, duration, what, cond)
}

// Recorder counts the keys a reconciler reports. It is safe for concurrent use.
type Recorder struct {
	mu   sync.Mutex
	seen map[string]int
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{seen: map[string]int{}} }

// Add counts key once more.
func (r *Recorder) Add(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen[key]++
}

// Count returns how often key was added.
func (r *Recorder) Count(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[key]
}

// Has reports whether key was added at least once.
func (r *Recorder) Has(key string) bool { return r.Count(key) > 0 }

// Keys returns a copy of the counts.
func (r *Recorder) Keys() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.seen))
	for k, v := range r.seen {
		out[k] = v
	}
	return out
}
