package suite

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
)

// tickName names the object a quiet cluster writes once a second.
const tickName = "tick"

// reconcileWork is what each reconcile costs in the noisy-neighbour scenario, so that a burst builds a backlog as
// real work would: with noisyWorkers workers the controller does at most noisyWorkers/reconcileWork reconciles
// per second.
const reconcileWork = 2 * time.Millisecond

// noisyWorkers is the controller's MaxConcurrentReconciles in the noisy-neighbour scenario.
const noisyWorkers = 2

// quietClusters is how many quiet clusters share the controller with the busy one.
const quietClusters = 20

// newQueueFunc is the type of the controller option NewQueue.
type newQueueFunc = func(string, workqueue.TypedRateLimiter[mcreconcile.Request]) workqueue.TypedRateLimitingInterface[mcreconcile.Request]

// NoisyNeighbour measures the write → reconcile latency of quiet clusters (one write per second each) while one
// busy cluster bursts events at the controller, with the fair queue and with controller-runtime's FIFO queue, and
// without a burst. Every cluster is a separate connection: the busy one to member-0, the quiet ones to member-1.
// The burst is the busy cluster's engagement with burst ConfigMaps: its informer lists them and hands all of them
// to the controller at once, much faster than the controller works through them, which is what a burst of writes
// does when the controller is the bottleneck (and does not load the quiet clusters' API server, so that the
// scenario measures the controller, not the control planes sharing the machine's cores).
func NoisyNeighbour(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, o Options) error {
	burst, duration, at := 20000, 30*time.Second, 2*time.Second
	if o.Quick {
		burst, duration, at = 1000, 6*time.Second, time.Second
	}
	members := fleet.Members()
	busyCfg, err := fleet.Config(members[0])
	if err != nil {
		return err
	}
	quietCfg, err := fleet.Config(members[1%len(members)])
	if err != nil {
		return err
	}
	busyWriter, err := writer(busyCfg)
	if err != nil {
		return err
	}
	quietWriter, err := writer(quietCfg)
	if err != nil {
		return err
	}
	const busyNS = "nn-busy"
	if err := seed(ctx, busyWriter, busyNS, "nn-", burst); err != nil {
		return err
	}
	quiet := make([]string, quietClusters)
	for i := range quiet {
		quiet[i] = fmt.Sprintf("nn-quiet-%d", i)
		if err := seed(ctx, quietWriter, quiet[i], "nn-", 0); err != nil {
			return err
		}
		if err := quietWriter.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: quiet[i], Name: tickName}}); client.IgnoreAlreadyExists(err) != nil {
			return err
		}
	}

	cases := []struct {
		name     string
		burst    bool
		newQueue newQueueFunc
	}{
		{"no burst", false, nil},
		{"burst, fair queue", true, nil},
		{"burst, FIFO queue", true, mccontroller.NewFIFOQueue[mcreconcile.Request]},
	}
	var calm time.Duration
	for i, c := range cases {
		res, err := noisyRun(ctx, fmt.Sprintf("noisy-%d", i), fleet.Host(), busyCfg, quietCfg, quietWriter, busyNS, quiet, c.burst, duration, at, c.newQueue)
		if err != nil {
			return fmt.Errorf("noisy neighbour, %s: %w", c.name, err)
		}
		p99 := percentile(res.lat, 99)
		r.Add("noisy-neighbour", c.name, "quiet write→reconcile p50", ms(percentile(res.lat, 50)), "ms")
		r.Add("noisy-neighbour", c.name, "quiet write→reconcile p99", ms(p99), "ms")
		if i == 0 {
			calm = p99
		} else if calm > 0 {
			r.Add("noisy-neighbour", c.name, "quiet p99 ÷ no burst", float64(p99)/float64(calm), "×")
		}
		r.Add("noisy-neighbour", c.name, "quiet write (API call) p99", ms(percentile(res.writes, 99)), "ms")
		r.Add("noisy-neighbour", c.name, "busy reconciles in the run", float64(res.busyReconciles), "")
	}
	return nil
}

type noisyResult struct {
	lat, writes    []time.Duration
	busyReconciles int
}

func noisyRun(ctx context.Context, name string, hostCfg, busyCfg, quietCfg *rest.Config, quietWriter client.Client, busyNS string,
	quiet []string, burst bool, duration, at time.Duration, newQueue newQueueFunc) (*noisyResult, error) {
	provider := clusters.New()
	mgr, err := newManager(hostCfg, provider)
	if err != nil {
		return nil, err
	}
	l := newLatencies()
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named(name).
		For(&corev1.ConfigMap{}).
		WithOptions(mccontroller.Options{MaxConcurrentReconciles: noisyWorkers, NewQueue: newQueue}).
		Complete(l.reconciler(mgr, tickName, reconcileWork)); err != nil {
		return nil, err
	}
	stop := run(ctx, mgr)
	defer func() { _ = stop() }()
	for _, q := range quiet {
		cl, err := separateCluster(quietCfg, q)
		if err != nil {
			return nil, err
		}
		if err := provider.Add(ctx, q, cl); err != nil {
			return nil, err
		}
	}
	if err := waitUntil(ctx, time.Minute, "the quiet clusters reconciled", func() bool {
		n, _ := l.reconciles()
		return n >= len(quiet)
	}); err != nil {
		return nil, err
	}

	res := &noisyResult{}
	start := time.Now()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	busyAdded := false
	for time.Since(start) < duration {
		if burst && !busyAdded && time.Since(start) >= at {
			cl, err := separateCluster(busyCfg, busyNS)
			if err != nil {
				return nil, err
			}
			if err := provider.Add(ctx, "busy", cl); err != nil {
				return nil, err
			}
			busyAdded = true
		}
		for _, q := range quiet {
			d, err := l.tick(ctx, quietWriter, q, q, tickName)
			if err != nil {
				return nil, err
			}
			res.writes = append(res.writes, d)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ticker.C:
		}
	}
	if err := waitUntil(ctx, 2*time.Minute, "every tick reconciled", func() bool { return l.unreconciled() == 0 }); err != nil {
		return nil, err
	}
	res.lat = l.samples()
	res.busyReconciles = l.of("busy")
	return res, nil
}
