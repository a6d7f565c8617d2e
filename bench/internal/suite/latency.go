package suite

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// writtenAnnotation carries the time a tick object was written, in Unix nanoseconds.
const writtenAnnotation = "bench.multicluster-runtime.sigs.k8s.io/written"

// latencies counts reconciles and records the write → reconcile latency of tick objects, from the time written
// into their annotation just before the write.
type latencies struct {
	mu          sync.Mutex
	lat         []time.Duration
	got         map[string]bool
	count       int
	perCluster  map[string]int
	first, last time.Time
}

func newLatencies() *latencies { return &latencies{got: map[string]bool{}, perCluster: map[string]int{}} }

// reconciler returns a reconciler that spends work on every request (simulated work, not synchronisation), and
// for objects named tick reads the object from its cluster's cache and records the latency of its last write,
// once per write.
func (l *latencies) reconciler(mgr mcmanager.Manager, tick string, work time.Duration) mcreconcile.Func {
	return func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
		if work > 0 {
			time.Sleep(work)
		}
		now := time.Now()
		l.mu.Lock()
		if l.count == 0 {
			l.first = now
		}
		l.count++
		l.perCluster[req.ClusterName]++
		l.last = now
		l.mu.Unlock()
		if req.Name != tick {
			return reconcile.Result{}, nil
		}
		cl, err := mgr.GetCluster(ctx, req.ClusterName)
		if err != nil {
			return reconcile.Result{}, nil // a cluster on its way out
		}
		cm := &corev1.ConfigMap{}
		if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		stamp := cm.Annotations[writtenAnnotation]
		written, err := strconv.ParseInt(stamp, 10, 64)
		if err != nil {
			return reconcile.Result{}, nil // not ticked yet
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		key := req.ClusterName + "/" + stamp
		if !l.got[key] {
			l.got[key] = true
			l.lat = append(l.lat, now.Sub(time.Unix(0, written)))
		}
		return reconcile.Result{}, nil
	}
}

// reconciles returns how many reconciles ran, and the time from the first to the last.
func (l *latencies) reconciles() (int, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count, l.last.Sub(l.first)
}

// of returns how many reconciles of the cluster ran.
func (l *latencies) of(cluster string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.perCluster[cluster]
}

// samples returns a copy of the latencies recorded so far.
func (l *latencies) samples() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Duration(nil), l.lat...)
}

// tick writes the current time into the annotation of object name in ns, and returns how long the write took.
func tick(ctx context.Context, c client.Client, ns, name string) (time.Duration, error) {
	start := time.Now()
	patch := client.RawPatch("application/merge-patch+json", fmt.Appendf(nil,
		`{"metadata":{"annotations":{%q:%q}}}`, writtenAnnotation, strconv.FormatInt(start.UnixNano(), 10)))
	err := c.Patch(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}, patch)
	return time.Since(start), err
}
