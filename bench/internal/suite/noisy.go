package suite

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
)

// writtenAnnotation carries the time a quiet cluster's object was written, in Unix nanoseconds.
const writtenAnnotation = "bench.multicluster-runtime.sigs.k8s.io/written"

// tickName names the object a quiet cluster writes once a second.
const tickName = "tick"

// reconcileWork is what each reconcile costs, so that a burst builds a backlog as real work would.
const reconcileWork = time.Millisecond

// quietClusters is how many quiet clusters share the controller with the busy one.
const quietClusters = 5

// NoisyNeighbour measures the write → reconcile latency of quiet clusters (one write per second each) while one
// busy cluster bursts events, with the fair queue and with controller-runtime's FIFO queue, and without a burst.
func NoisyNeighbour(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, o Options) error {
	burst, duration := 20000, 30*time.Second
	if o.Quick {
		burst, duration = 1000, 5*time.Second
	}
	cases := []struct {
		name     string
		burst    int
		newQueue func(string, workqueue.TypedRateLimiter[mcreconcile.Request]) workqueue.TypedRateLimitingInterface[mcreconcile.Request]
	}{
		{"fair, no burst", 0, nil},
		{"fair, burst", burst, nil},
		{"fifo, burst", burst, mccontroller.NewFIFOQueue[mcreconcile.Request]},
	}
	for i, c := range cases {
		lat, err := noisyRun(ctx, fleet, fmt.Sprintf("nn%d-", i), c.burst, duration, c.newQueue)
		if err != nil {
			return fmt.Errorf("noisy neighbour, %s: %w", c.name, err)
		}
		r.Add("noisy-neighbour", c.name, "quiet p50", ms(percentile(lat, 50)), "ms")
		r.Add("noisy-neighbour", c.name, "quiet p99", ms(percentile(lat, 99)), "ms")
	}
	return nil
}

func noisyRun(ctx context.Context, fleet *mcenvtest.Fleet, prefix string, burst int, duration time.Duration,
	newQueue func(string, workqueue.TypedRateLimiter[mcreconcile.Request]) workqueue.TypedRateLimitingInterface[mcreconcile.Request]) ([]time.Duration, error) {
	// The writers are not rate limited: the burst must reach the API server as fast as it takes it.
	cfg := fleet.Host()
	cfg.QPS, cfg.Burst = -1, 0
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return nil, err
	}
	busy := prefix + "busy"
	quiet := make([]string, quietClusters)
	for i := range quiet {
		quiet[i] = fmt.Sprintf("%squiet-%d", prefix, i)
		if err := seed(ctx, c, quiet[i], 0); err != nil {
			return nil, err
		}
		if err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: quiet[i], Name: tickName}}); err != nil {
			return nil, err
		}
	}
	if err := seed(ctx, c, busy, 0); err != nil {
		return nil, err
	}

	shared, err := cluster.New(fleet.Host())
	if err != nil {
		return nil, err
	}
	mgr, err := newManager(fleet.Host(), namespace.New(shared))
	if err != nil {
		return nil, err
	}
	if err := mgr.GetLocalManager().Add(shared); err != nil {
		return nil, err
	}
	var (
		mu  sync.Mutex
		lat []time.Duration
		got = map[string]bool{}
	)
	err = mcbuilder.ControllerManagedBy(mgr).
		Named(prefix + "noisy").
		For(&corev1.ConfigMap{}).
		WithOptions(mccontroller.Options{MaxConcurrentReconciles: 2, NewQueue: newQueue}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			time.Sleep(reconcileWork) // simulated work, not synchronisation
			if req.Name != tickName {
				return reconcile.Result{}, nil
			}
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return reconcile.Result{}, nil // a cluster of another run
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			written, err := strconv.ParseInt(cm.Annotations[writtenAnnotation], 10, 64)
			if err != nil {
				return reconcile.Result{}, nil // not written by the ticker yet
			}
			mu.Lock()
			defer mu.Unlock()
			key := req.ClusterName + "/" + cm.Annotations[writtenAnnotation]
			if !got[key] {
				got[key] = true
				lat = append(lat, time.Since(time.Unix(0, written)))
			}
			return reconcile.Result{}, nil
		}))
	if err != nil {
		return nil, err
	}
	stop := run(ctx, mgr)
	defer func() { _ = stop() }()
	if err := waitUntil(ctx, time.Minute, "the quiet clusters engaged", func() bool {
		for _, q := range quiet {
			if _, err := mgr.GetCluster(ctx, q); err != nil {
				return false
			}
		}
		return true
	}); err != nil {
		return nil, err
	}

	runCtx, cancel := context.WithTimeout(ctx, duration)
	defer cancel()
	var wg sync.WaitGroup
	if burst > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = parallel(8, burst, func(i int) error {
				if runCtx.Err() != nil {
					return runCtx.Err()
				}
				return c.Create(runCtx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: busy, Name: fmt.Sprintf("burst-%05d", i)}})
			})
		}()
	}
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for runCtx.Err() == nil {
		for _, q := range quiet {
			patch := client.RawPatch("application/merge-patch+json", fmt.Appendf(nil,
				`{"metadata":{"annotations":{%q:%q}}}`, writtenAnnotation, strconv.FormatInt(time.Now().UnixNano(), 10)))
			if err := c.Patch(runCtx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: q, Name: tickName}}, patch); err != nil {
				if deadline, _ := runCtx.Deadline(); time.Until(deadline) > 2*time.Second {
					return nil, err
				}
				break // the run is ending
			}
		}
		select {
		case <-runCtx.Done():
		case <-ticker.C:
		}
	}
	wg.Wait()
	// Let the last ticks arrive.
	_ = waitUntil(ctx, 30*time.Second, "the last ticks", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(lat) >= quietClusters*int(duration/time.Second)
	})
	mu.Lock()
	defer mu.Unlock()
	return lat, nil
}
