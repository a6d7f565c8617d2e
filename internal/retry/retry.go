package retry

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// EngageBackoff paces the retries of a cluster that failed to engage: 1s, doubling, with 10% jitter, at most 5
// minutes apart, never giving up.
var EngageBackoff = wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.1, Steps: 1 << 30, Cap: 5 * time.Minute}

// Delay returns how long to wait before the next attempt after failures consecutive failures of b (0 for none).
func Delay(b wait.Backoff, failures int) time.Duration {
	var d time.Duration
	for range failures {
		d = b.Step()
	}
	return d
}

// HandBack sends v on ch after delay, so that the controller reading ch looks at the object again; it gives up
// without sending when ctx ends first.
func HandBack[T any](ctx context.Context, delay time.Duration, ch chan<- T, v T) {
	if delay > 0 {
		timer := time.NewTimer(delay)
		defer timer.Stop()
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
	}
	select {
	case ch <- v:
	case <-ctx.Done():
	}
}
