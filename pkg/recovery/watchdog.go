// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package recovery

import (
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/go-logr/logr"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// Defaults of the watchdog of unanswered requests.
const (
	// DefaultSlowRequestThreshold is how long a request may go unanswered before the cluster's log says so.
	DefaultSlowRequestThreshold = 10 * time.Second
	// slowRequestReportInterval is the least time between two such lines of one cluster.
	slowRequestReportInterval = time.Minute
)

// errSlowRequest is the error logged for a request not answered in time.
var errSlowRequest = errors.New("request not answered")

// watchdog is the outermost round tripper of a cluster's HTTP client. It logs, naming the cluster, when a request
// goes unanswered for longer than threshold: an API server that accepts connections but answers nothing, or a
// credential plugin that hangs (client-go runs exec plugins without a timeout, before the request is sent, so
// nothing else reports it). It costs a timer per request and sends nothing.
type watchdog struct {
	base      http.RoundTripper
	threshold time.Duration
	log       logr.Logger

	mu           sync.Mutex
	lastReported time.Time
}

var _ utilnet.RoundTripperWrapper = &watchdog{}

func (w *watchdog) RoundTrip(req *http.Request) (*http.Response, error) {
	began := time.Now()
	timer := time.AfterFunc(w.threshold, func() { w.unanswered(req) })
	resp, err := w.base.RoundTrip(req)
	if !timer.Stop() {
		w.answered(req, time.Since(began), err)
	}
	return resp, err
}

// WrappedRoundTripper returns the round tripper the watchdog wraps.
func (w *watchdog) WrappedRoundTripper() http.RoundTripper { return w.base }

// unanswered logs a request that has not been answered after the threshold, at most once per report interval.
func (w *watchdog) unanswered(req *http.Request) {
	w.mu.Lock()
	report := time.Since(w.lastReported) >= slowRequestReportInterval
	if report {
		w.lastReported = time.Now()
	}
	w.mu.Unlock()
	if report {
		w.log.Error(errSlowRequest, "A request to the cluster has not been answered; its API server does not answer, or its credential plugin hangs",
			"after", w.threshold, "method", req.Method, "path", req.URL.Path)
	}
}

// answered logs, at a higher verbosity, that a request reported as unanswered got its answer.
func (w *watchdog) answered(req *http.Request, took time.Duration, err error) {
	log := w.log.V(1).WithValues("method", req.Method, "path", req.URL.Path, "after", took.Round(time.Millisecond))
	if err != nil {
		log.Info("A request to the cluster that was not answered in time failed", "error", err.Error())
		return
	}
	log.Info("A request to the cluster that was not answered in time got its answer")
}

// withWatchdog returns a copy of c whose requests go through a watchdog.
func withWatchdog(c *http.Client, threshold time.Duration, log logr.Logger) *http.Client {
	wrapped := *c
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	wrapped.Transport = &watchdog{base: base, threshold: threshold, log: log}
	return &wrapped
}
