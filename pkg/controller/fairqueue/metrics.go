// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package fairqueue

import (
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// unfinishedWorkUpdatePeriod is how often a named queue updates its unfinished-work metrics, as client-go's work
// queue does.
const unfinishedWorkUpdatePeriod = 500 * time.Millisecond

// queueMetrics are the workqueue metrics of a named queue: the metrics client-go's work queue records, with the
// same meaning, from the metrics provider that controller-runtime installs. The times they need are kept in the
// requests' entries instead of client-go's maps. A nil *queueMetrics (an unnamed queue) records nothing.
type queueMetrics struct {
	depth          workqueue.GaugeMetric
	adds           workqueue.CounterMetric
	latency        workqueue.HistogramMetric
	workDuration   workqueue.HistogramMetric
	unfinishedWork workqueue.SettableGaugeMetric
	longestRunning workqueue.SettableGaugeMetric
	retries        workqueue.CounterMetric
}

// newQueueMetrics returns the metrics of the queue named name, nil for an empty name or if controller-runtime's
// provider cannot be found.
func newQueueMetrics(name string) *queueMetrics {
	if name == "" {
		return nil
	}
	mp := controllerRuntimeMetricsProvider()
	if mp == nil {
		return nil
	}
	return &queueMetrics{
		depth:          mp.NewDepthMetric(name),
		adds:           mp.NewAddsMetric(name),
		latency:        mp.NewLatencyMetric(name),
		workDuration:   mp.NewWorkDurationMetric(name),
		unfinishedWork: mp.NewUnfinishedWorkSecondsMetric(name),
		longestRunning: mp.NewLongestRunningProcessorSecondsMetric(name),
		retries:        mp.NewRetriesMetric(name),
	}
}

// controllerRuntimeMetricsProvider returns the workqueue metrics provider of controller-runtime, the one its
// priority queue defaults to and installs for client-go's work queues (registered in its metrics.Registry). It is
// found the one way controller-runtime's public API shows it: priorityqueue.New fills the options it was given
// with its default provider. The queue built for that has no name, hence no metrics, and is shut down at once.
var controllerRuntimeMetricsProvider = sync.OnceValue(func() workqueue.MetricsProvider {
	var opts *priorityqueue.Opts[struct{}]
	q := priorityqueue.New("", func(o *priorityqueue.Opts[struct{}]) { opts = o })
	q.ShutDown()
	if opts == nil {
		return nil
	}
	return opts.MetricProvider
})

// added records an add of a request that was not pending already.
func (m *queueMetrics) added(t *metricTimes) {
	if m == nil {
		return
	}
	m.adds.Inc()
	m.depth.Inc()
	if t.added.IsZero() {
		t.added = time.Now()
	}
}

// handedOut records that a worker took the request.
func (m *queueMetrics) handedOut(t *metricTimes) {
	if m == nil {
		return
	}
	m.depth.Dec()
	t.started = time.Now()
	if !t.added.IsZero() {
		m.latency.Observe(t.started.Sub(t.added).Seconds())
		t.added = time.Time{}
	}
}

// done records that a worker is done with the request.
func (m *queueMetrics) done(t *metricTimes) {
	if m == nil {
		return
	}
	if !t.started.IsZero() {
		m.workDuration.Observe(time.Since(t.started).Seconds())
		t.started = time.Time{}
	}
}

// retried counts an add with a delay.
func (m *queueMetrics) retried() {
	if m != nil {
		m.retries.Inc()
	}
}

// setUnfinishedWork sets the seconds of work in progress and the age of the oldest.
func (m *queueMetrics) setUnfinishedWork(total, oldest float64) {
	if m != nil {
		m.unfinishedWork.Set(total)
		m.longestRunning.Set(oldest)
	}
}

// metricTimes are the times the metrics keep of one request.
type metricTimes struct {
	added   time.Time // when it was added and not yet handed out; zero if not
	started time.Time // when a worker took it; zero if none holds it
}
