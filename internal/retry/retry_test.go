package retry

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

func TestDelayGrowsAndIsCapped(t *testing.T) {
	b := wait.Backoff{Duration: time.Second, Factor: 2, Steps: 1 << 30, Cap: 5 * time.Second}
	for failures, want := range []time.Duration{0, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second} {
		if got := Delay(b, failures); got != want {
			t.Errorf("Delay after %d failures = %s, want %s", failures, got, want)
		}
	}
}

func TestHandBackSends(t *testing.T) {
	ch := make(chan string, 1)
	HandBack(t.Context(), time.Millisecond, ch, "profile")
	if got := <-ch; got != "profile" {
		t.Fatalf("got %q", got)
	}
}

func TestHandBackGivesUpWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	ch := make(chan string) // nobody reads: only the context can end HandBack
	HandBack(ctx, 0, ch, "profile")
	HandBack(ctx, time.Hour, ch, "profile")
}
