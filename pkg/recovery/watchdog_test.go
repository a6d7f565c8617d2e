// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package recovery

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
)

// blockingTransport answers every request once release is closed, and counts the requests it holds.
type blockingTransport struct {
	release chan struct{}

	mu        sync.Mutex
	held      int
	lastEntry time.Time
}

func (b *blockingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	b.mu.Lock()
	b.held++
	b.lastEntry = time.Now()
	b.mu.Unlock()
	<-b.release
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}, nil
}

// heldFor reports whether the transport has held n requests, the last of them for at least d.
func (b *blockingTransport) heldFor(n int, d time.Duration) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held >= n && time.Since(b.lastEntry) >= d
}

type lines struct {
	mu  sync.Mutex
	all []string
}

func (l *lines) add(prefix, args string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, prefix+" "+args)
}

func (l *lines) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.all...)
}

// A request that is not answered in time is logged once, naming the cluster (the logger's values) and the path;
// later ones within the report interval are not; a fast request is not logged at all.
func TestWatchdog(t *testing.T) {
	logged := &lines{}
	log := funcr.New(logged.add, funcr.Options{Verbosity: 1}).WithValues("cluster", "east")
	base := &blockingTransport{release: make(chan struct{})}
	const threshold = 20 * time.Millisecond
	c := withWatchdog(&http.Client{Transport: base}, threshold, log)

	done := make(chan struct{})
	for range 3 {
		go func() {
			defer func() { done <- struct{}{} }()
			req := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "https://east.example/api/v1/namespaces", nil)
			req.RequestURI = ""
			resp, err := c.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			_ = resp.Body.Close()
		}()
	}
	pollUntil(t, "the unanswered request logged", func() bool { return len(logged.get()) > 0 })
	// Every request must have been held past the threshold, so that each is answered late and logged as such: on
	// a loaded machine a goroutine may reach the transport well after the first request was reported. The margin,
	// fifty times the threshold, lets the watchdog's timers of all three fire before the answers come.
	pollUntil(t, "all three requests held past the threshold", func() bool { return base.heldFor(3, 50*threshold) })
	close(base.release)
	for range 3 {
		<-done
	}
	pollUntil(t, "the answers logged", func() bool { return len(logged.get()) >= 4 })
	got := logged.get()
	unanswered := 0
	for _, line := range got {
		if strings.Contains(line, "has not been answered") {
			unanswered++
			if !strings.Contains(line, `"cluster"="east"`) || !strings.Contains(line, `"path"="/api/v1/namespaces"`) {
				t.Errorf("the line does not name the cluster and the path: %s", line)
			}
		}
	}
	if unanswered != 1 {
		t.Errorf("%d lines about unanswered requests, want 1 (once per interval):\n%s", unanswered, strings.Join(got, "\n"))
	}

	before := len(logged.get())
	fast := &http.Client{Transport: &watchdog{base: &blockingTransport{release: closed()}, threshold: time.Minute, log: log}}
	req := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "https://east.example/version", nil)
	req.RequestURI = ""
	resp, err := fast.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if after := len(logged.get()); after != before {
		t.Errorf("a fast request was logged: %v", logged.get()[before:])
	}
}

func closed() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
