package harness

import (
	"context"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// DefaultTimeout is how long Eventually waits by default. It is generous: CI machines are small and shared.
const DefaultTimeout = 60 * time.Second

// Eventually polls cond every 20ms until it holds, failing the test after timeout (DefaultTimeout if zero).
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("timed out after %s waiting for %s", timeout, what)
	}
}

// Consistently polls cond every 20ms for the whole duration and fails the test as soon as it does not hold.
func Consistently(t testing.TB, duration time.Duration, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, duration, true, func(context.Context) (bool, error) {
		if !cond() {
			return true, nil
		}
		return false, nil
	})
	if err == nil {
		t.Fatalf("%s stopped holding", what)
	}
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
