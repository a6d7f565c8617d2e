// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package suite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
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

// newPriorityQueue is controller-runtime's priority queue (priorityqueue.New, its controllers' default): requests of
// higher priority first, but nothing fair across clusters.
func newPriorityQueue(name string, rateLimiter workqueue.TypedRateLimiter[mcreconcile.Request]) workqueue.TypedRateLimitingInterface[mcreconcile.Request] {
	return priorityqueue.New(name, func(o *priorityqueue.Opts[mcreconcile.Request]) { o.RateLimiter = rateLimiter })
}

// burstKind is how the busy cluster bursts at the controller.
type burstKind int

const (
	// noBurst: the quiet clusters alone.
	noBurst burstKind = iota
	// engageBurst: the busy cluster joins with burst ConfigMaps. Its cache's initial events reach the controller at
	// once, which priority queues take at handler.LowPriority (controller-runtime's handlers mark the initial list).
	engageBurst
	// updateBurst: the busy cluster is engaged before the run, with no objects; at the burst, burst requests of it
	// are put into the controller's queue at once at the default priority, as a storm of updates of its objects
	// would be. (Writing the updates would load the API servers, which share the machine's cores with the
	// controller, instead of the controller.)
	updateBurst
)

// noisyCase is one arm of the noisy-neighbour scenario.
type noisyCase struct {
	name  string
	burst burstKind
	// newQueue is the controller's NewQueue option; nil is the controller's default, the fair priority queue
	// (mccontroller.NewFairPriorityQueue).
	newQueue newQueueFunc
}

// noisyCases are the arms of the noisy-neighbour scenario, in the order they run and are charted: the fair queue
// (the default), controller-runtime's FIFO queue (the unfair baseline) and controller-runtime's priority queue
// (priorities, unfair across clusters), each under both kinds of burst.
var noisyCases = []noisyCase{
	{"no burst", noBurst, nil},
	{"burst, fair queue", engageBurst, nil},
	{"burst, FIFO queue", engageBurst, mccontroller.NewFIFOQueue[mcreconcile.Request]},
	{"burst, priority queue", engageBurst, newPriorityQueue},
	{"update burst, fair queue", updateBurst, nil},
	{"update burst, FIFO queue", updateBurst, mccontroller.NewFIFOQueue[mcreconcile.Request]},
	{"update burst, priority queue", updateBurst, newPriorityQueue},
}

// NoisyNeighbour measures the write → reconcile latency of quiet clusters (one write per second each) while one
// busy cluster bursts events at the controller, for each of noisyCases: without a burst, and with each queue under
// an engage burst and an update burst. Every cluster is a separate connection: the busy one to member-0, the quiet
// ones to member-1.
//
// The engage burst is the busy cluster's engagement with burst ConfigMaps: its informer's initial events (a
// streaming watch, or a list on API servers without one) hand all of them to the controller at once, much faster
// than the controller works through them, which is what a burst of writes does when the controller is the
// bottleneck (and does not load the quiet clusters' API server, so that the scenario measures the controller, not
// the control planes sharing the machine's cores). Priority queues take these events at low priority, behind the
// quiet clusters' writes, so the update burst repeats the burst at the quiet writes' priority: there only a queue
// that is fair across clusters keeps the quiet clusters' latency.
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
	n := &noisy{
		hostCfg: fleet.Host(), busyCfg: busyCfg, quietCfg: quietCfg, quietWriter: quietWriter,
		burst: burst, duration: duration, at: at,
	}
	if err := seed(ctx, busyWriter, n.busyNS(engageBurst), "nn-", burst); err != nil {
		return err
	}
	if err := seed(ctx, busyWriter, n.busyNS(updateBurst), "nn-", 0); err != nil {
		return err
	}
	n.quiet = make([]string, quietClusters)
	for i := range n.quiet {
		n.quiet[i] = fmt.Sprintf("nn-quiet-%d", i)
		if err := seed(ctx, quietWriter, n.quiet[i], "nn-", 0); err != nil {
			return err
		}
		if err := quietWriter.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: n.quiet[i], Name: tickName}}); client.IgnoreAlreadyExists(err) != nil {
			return err
		}
	}

	var calm time.Duration
	for i, c := range noisyCases {
		res, err := n.run(ctx, fmt.Sprintf("noisy-%d", i), c)
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

// busyCluster is the name of the busy cluster.
const busyCluster multicluster.ClusterName = "busy"

// noisy is the setting every arm of the noisy-neighbour scenario runs in.
type noisy struct {
	hostCfg, busyCfg, quietCfg *rest.Config
	quietWriter                client.Client
	quiet                      []string // the quiet clusters, each the namespace of the same name on quietCfg
	burst                      int
	duration, at               time.Duration
}

// busyNS is the namespace the busy cluster watches: burst ConfigMaps for an engage burst, none for an update burst.
func (n *noisy) busyNS(kind burstKind) string {
	if kind == updateBurst {
		return "nn-busy-updates"
	}
	return "nn-busy"
}

// injector is a raw source of the controller that keeps the controller's queue, to put requests straight into it.
type injector struct {
	mu    sync.Mutex
	queue workqueue.TypedRateLimitingInterface[mcreconcile.Request]
}

func (in *injector) source() source.TypedSource[mcreconcile.Request] {
	return source.TypedFunc[mcreconcile.Request](func(_ context.Context, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) error {
		in.mu.Lock()
		defer in.mu.Unlock()
		in.queue = q
		return nil
	})
}

// add puts reqs into the controller's queue at the default priority.
func (in *injector) add(reqs []mcreconcile.Request) error {
	in.mu.Lock()
	q := in.queue
	in.mu.Unlock()
	if q == nil {
		return errors.New("the controller has not started its sources")
	}
	for _, req := range reqs {
		q.Add(req)
	}
	return nil
}

type noisyResult struct {
	lat, writes    []time.Duration
	busyReconciles int
}

// run runs one arm: a manager with the controller of case c, the quiet clusters (and for an update burst the busy
// one) engaged, then duration of a write to every quiet cluster each second, with the burst at at.
func (n *noisy) run(ctx context.Context, name string, c noisyCase) (*noisyResult, error) {
	provider := clusters.New()
	mgr, err := newManager(n.hostCfg, provider)
	if err != nil {
		return nil, err
	}
	l := newLatencies()
	inj := &injector{}
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named(name).
		For(&corev1.ConfigMap{}).
		WatchesRawSource(inj.source()).
		WithOptions(mccontroller.Options{MaxConcurrentReconciles: noisyWorkers, NewQueue: c.newQueue}).
		Complete(l.reconciler(mgr, tickName, reconcileWork)); err != nil {
		return nil, err
	}
	stop := run(ctx, mgr)
	defer func() { _ = stop() }()
	for _, q := range n.quiet {
		cl, err := separateCluster(n.quietCfg, q)
		if err != nil {
			return nil, err
		}
		if err := provider.Add(ctx, multicluster.ClusterName(q), cl); err != nil {
			return nil, err
		}
	}
	addBusy := func() error {
		cl, err := separateCluster(n.busyCfg, n.busyNS(c.burst))
		if err != nil {
			return err
		}
		return provider.Add(ctx, busyCluster, cl)
	}
	if c.burst == updateBurst {
		if err := addBusy(); err != nil {
			return nil, err
		}
	}
	if err := waitUntil(ctx, time.Minute, "the quiet clusters reconciled", func() bool {
		done, _ := l.reconciles()
		return done >= len(n.quiet)
	}); err != nil {
		return nil, err
	}

	res := &noisyResult{}
	start := time.Now()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	burst := map[burstKind]func() error{
		noBurst:     func() error { return nil },
		engageBurst: addBusy,
		updateBurst: func() error { return inj.add(n.updates()) },
	}[c.burst]
	for time.Since(start) < n.duration {
		if burst != nil && time.Since(start) >= n.at {
			if err := burst(); err != nil {
				return nil, err
			}
			burst = nil
		}
		for _, q := range n.quiet {
			d, err := l.tick(ctx, n.quietWriter, multicluster.ClusterName(q), q, tickName)
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
	res.busyReconciles = l.of(busyCluster)
	return res, nil
}

// updates returns the requests of an update burst: one for each of burst objects of the busy cluster.
func (n *noisy) updates() []mcreconcile.Request {
	reqs := make([]mcreconcile.Request, n.burst)
	for i := range reqs {
		reqs[i] = mcreconcile.Request{
			Request:     reconcile.Request{NamespacedName: types.NamespacedName{Namespace: n.busyNS(updateBurst), Name: objectName(i)}},
			ClusterName: busyCluster,
		}
	}
	return reqs
}
