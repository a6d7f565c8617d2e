// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"sigs.k8s.io/multicluster-runtime/pkg/informer"
)

// bodyLogVerbosity is the verbosity from which client-go logs the bodies of API requests and responses, Secrets
// with their data included.
const bodyLogVerbosity = 8

// newQuietInformer builds the informers of the provider's cache of Secrets (informer.New, as for the clusters). Their
// list and watch calls log through a logger that drops lines of verbosity bodyLogVerbosity and above, so that the
// kubeconfigs of the Secrets never reach the logs, even when the program runs with a high verbosity.
func newQuietInformer(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration,
	indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	return informer.New(&quietListerWatcher{lw: toolscache.ToListerWatcherWithContext(lw)}, obj, resync, indexers)
}

// quietListerWatcher lists and watches with a logger that never logs bodies.
type quietListerWatcher struct {
	lw toolscache.ListerWatcherWithContext
}

var (
	_ toolscache.ListerWatcher            = &quietListerWatcher{}
	_ toolscache.ListerWatcherWithContext = &quietListerWatcher{}
)

func (q *quietListerWatcher) List(options metav1.ListOptions) (runtime.Object, error) {
	return q.ListWithContext(context.Background(), options)
}

func (q *quietListerWatcher) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return q.WatchWithContext(context.Background(), options)
}

func (q *quietListerWatcher) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	return q.lw.ListWithContext(quietContext(ctx), options)
}

func (q *quietListerWatcher) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	return q.lw.WatchWithContext(quietContext(ctx), options)
}

// quietContext returns ctx with its logger capped below bodyLogVerbosity.
func quietContext(ctx context.Context) context.Context {
	logger := klog.FromContext(ctx)
	if logger.GetSink() == nil {
		return ctx
	}
	return klog.NewContext(ctx, logr.New(&cappedSink{sink: logger.GetSink(), below: bodyLogVerbosity}))
}

// cappedSink passes on the lines of a sink below a verbosity and drops the others. Errors always pass.
type cappedSink struct {
	sink  logr.LogSink
	below int
}

var (
	_ logr.LogSink          = &cappedSink{}
	_ logr.CallDepthLogSink = &cappedSink{}
)

func (s *cappedSink) Init(info logr.RuntimeInfo) { s.sink.Init(info) }

func (s *cappedSink) Enabled(level int) bool { return level < s.below && s.sink.Enabled(level) }

func (s *cappedSink) Info(level int, msg string, keysAndValues ...any) {
	if level < s.below {
		s.sink.Info(level, msg, keysAndValues...)
	}
}

func (s *cappedSink) Error(err error, msg string, keysAndValues ...any) {
	s.sink.Error(err, msg, keysAndValues...)
}

func (s *cappedSink) WithValues(keysAndValues ...any) logr.LogSink {
	return &cappedSink{sink: s.sink.WithValues(keysAndValues...), below: s.below}
}

func (s *cappedSink) WithName(name string) logr.LogSink {
	return &cappedSink{sink: s.sink.WithName(name), below: s.below}
}

func (s *cappedSink) WithCallDepth(depth int) logr.LogSink {
	if cd, ok := s.sink.(logr.CallDepthLogSink); ok {
		return &cappedSink{sink: cd.WithCallDepth(depth), below: s.below}
	}
	return s
}
