package harness

import "go.uber.org/goleak"

// SharedGoroutines returns goleak options that ignore goroutines which belong to the process, or to an informer that
// was running before a leak check began and outlives it, rather than to the clusters the check is about:
//
//   - the goroutines of client-go's pooled HTTP connections, which come and go as connections idle out;
//   - the goroutines a long-lived reflector starts each time it re-establishes its watch (the API server ends
//     every watch after 5–10 minutes, and a reflector under load may also relist): the resync timer, the watch's
//     stream decoder and the HTTP/2 request. goleak.IgnoreCurrent records goroutines, not informers, so without
//     these options a check that spans a re-watch of a shared cache reports the new goroutines as leaked.
//
// A leaked informer is still found: its reflector, controller and listener goroutines live as long as it does.
func SharedGoroutines() []goleak.Option {
	return []goleak.Option{
		goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreAnyFunction("net/http.(*http2ClientConn).readLoop"),
		goleak.IgnoreAnyFunction("golang.org/x/net/http2.(*ClientConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*http2clientStream).doRequest"),
		goleak.IgnoreAnyFunction("golang.org/x/net/http2.(*clientStream).doRequest"),
		goleak.IgnoreTopFunction("k8s.io/client-go/tools/cache.(*Reflector).startResync"),
		goleak.IgnoreAnyFunction("k8s.io/apimachinery/pkg/watch.(*StreamWatcher).receive"),
	}
}

// LeakOptions returns ignore followed by SharedGoroutines, ready for goleak.Find or goleak.VerifyNone.
func LeakOptions(ignore ...goleak.Option) []goleak.Option {
	return append(append([]goleak.Option{}, ignore...), SharedGoroutines()...)
}
