// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package harness

import (
	"go.uber.org/goleak"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
)

// SharedGoroutines returns goleak options that ignore goroutines which belong to the process, or to an informer that
// was running before a leak check began and outlives it, rather than to the clusters the check is about:
//
//   - the goroutines of client-go's pooled HTTP connections, which come and go as connections idle out;
//
//   - the goroutines a long-lived reflector starts each time it re-establishes its watch (the API server ends
//     every watch after 5–10 minutes, and a reflector under load may also relist): the resync timer, the watch's
//     stream decoder and the HTTP/2 request. goleak.IgnoreCurrent records goroutines, not informers, so without
//     these options a check that spans a re-watch of a shared cache reports the new goroutines as leaked.
//
//   - controller-runtime v0.25's multi-namespace cache (used whenever cache.Options.DefaultNamespaces is set) starts
//     a goroutine per informer and per event-handler registration that waits for the namespaced informers to sync,
//     and never returns when the cache is stopped before they do: a cluster disengaged before its cache synced
//     leaves them behind. They are controller-runtime's, not the library's (docs/advanced/known-issues.md).
//
// A leaked informer is still found: its reflector, controller and listener goroutines live as long as it does.
func SharedGoroutines() []goleak.Option {
	opts := make([]goleak.Option, 0, 8)
	for _, f := range mcenvtest.HTTPConnectionFunctions() {
		opts = append(opts, goleak.IgnoreAnyFunction(f))
	}
	return append(opts,
		goleak.IgnoreAnyFunction("net/http.(*http2clientStream).doRequest"),
		goleak.IgnoreAnyFunction("golang.org/x/net/http2.(*clientStream).doRequest"),
		goleak.IgnoreTopFunction("k8s.io/client-go/tools/cache.(*Reflector).startResync"),
		goleak.IgnoreAnyFunction("k8s.io/apimachinery/pkg/watch.(*StreamWatcher).receive"),
		goleak.IgnoreTopFunction("sigs.k8s.io/controller-runtime/pkg/cache.newMultiNamespaceInformer.func1"),
		goleak.IgnoreTopFunction("sigs.k8s.io/controller-runtime/pkg/cache.newMultiNamespaceInformerHandlerRegistration.func1"),
	)
}

// LeakOptions returns ignore followed by SharedGoroutines, ready for goleak.Find or goleak.VerifyNone.
func LeakOptions(ignore ...goleak.Option) []goleak.Option {
	return append(append([]goleak.Option{}, ignore...), SharedGoroutines()...)
}
