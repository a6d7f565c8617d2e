// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package recovery

import (
	"time"
)

// Defaults of Options.
const (
	// DefaultProbeTimeout bounds one readiness probe.
	DefaultProbeTimeout = 2 * time.Second
	// DefaultInitialProbeInterval is the wait before the first probe of an outage.
	DefaultInitialProbeInterval = 100 * time.Millisecond
	// DefaultMaxProbeInterval caps the wait between probes while the API server does not answer, and so bounds
	// how long after the API server is ready again the informers resume.
	DefaultMaxProbeInterval = time.Second
	// DefaultMaxStrikeInterval caps the wait between probes of a cluster whose API server answers probes while
	// its list and watch calls keep failing; it is client-go's reflector backoff cap.
	DefaultMaxStrikeInterval = 30 * time.Second
)

// probeJitter is the fraction of random jitter added to every probe interval, so that clusters that fail together
// (the controller's own network) are not probed in lockstep.
const probeJitter = 0.1

// Options tunes the readiness probing of a cluster. The zero value means every default.
type Options struct {
	// ProbeTimeout bounds one readiness probe. Default DefaultProbeTimeout.
	ProbeTimeout time.Duration
	// InitialProbeInterval is the wait before the first probe of an outage; the wait doubles with every probe
	// that is not answered. Default DefaultInitialProbeInterval.
	InitialProbeInterval time.Duration
	// MaxProbeInterval caps the wait between probes. Default DefaultMaxProbeInterval.
	MaxProbeInterval time.Duration
	// MaxStrikeInterval caps the wait between probes when probes are answered but list and watch calls fail
	// right after. Default DefaultMaxStrikeInterval.
	MaxStrikeInterval time.Duration
	// SlowRequestThreshold is how long a request of the cluster may go unanswered before the cluster's log says
	// so (at most once a minute). Default DefaultSlowRequestThreshold.
	SlowRequestThreshold time.Duration
}

// withDefaults returns o with every default applied.
func (o Options) withDefaults() Options {
	if o.ProbeTimeout <= 0 {
		o.ProbeTimeout = DefaultProbeTimeout
	}
	if o.InitialProbeInterval <= 0 {
		o.InitialProbeInterval = DefaultInitialProbeInterval
	}
	if o.MaxProbeInterval <= 0 {
		o.MaxProbeInterval = DefaultMaxProbeInterval
	}
	if o.SlowRequestThreshold <= 0 {
		o.SlowRequestThreshold = DefaultSlowRequestThreshold
	}
	if o.MaxStrikeInterval < o.MaxProbeInterval {
		o.MaxStrikeInterval = max(DefaultMaxStrikeInterval, o.MaxProbeInterval)
	}
	return o
}
