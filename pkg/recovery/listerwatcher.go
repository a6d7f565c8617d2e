// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package recovery

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// ClusterOption returns a cluster.Option for the cluster named name, built from cfg, that makes the informers of
// its cache resume as soon as the cluster answers again after an outage (see the package documentation). It wraps
// cluster.Options.Cache.NewInformer, calling the one set by earlier options, if any, with the wrapped list and
// watch functions; append it after the user's options. It adds no request while the cluster is healthy.
//
// The informers also log with the key "cluster" (controller-runtime runs them all with one logger that does not
// say which cluster a line is about). And every request of the cluster (its HTTP client, cluster.Options.HTTPClient,
// wrapped or built from cfg) goes through a watchdog that logs, naming the cluster, a request not answered after
// Options.SlowRequestThreshold: an API server that stopped answering, or a credential plugin that hangs (client-go
// runs plugins without a timeout), would otherwise go unreported.
//
// The gate logs through the cluster's logger (cluster.Options.Logger) if an earlier option set one, which then
// names the cluster, and otherwise through controller-runtime's global logger with the key "cluster".
func ClusterOption(name multicluster.ClusterName, cfg *rest.Config) cluster.Option {
	return ClusterOptionWith(name, cfg, Options{})
}

// ClusterOptionWith is ClusterOption with probing tuned by opts.
func ClusterOptionWith(name multicluster.ClusterName, cfg *rest.Config, opts Options) cluster.Option {
	cfg = rest.CopyConfig(cfg)
	return func(o *cluster.Options) {
		log := o.Logger
		if log.GetSink() == nil {
			log = logf.Log.WithValues("cluster", name)
		}
		opts := opts.withDefaults()
		log = log.WithName("recovery")
		httpClient := o.HTTPClient
		if httpClient == nil {
			// What cluster.New would build; building it here lets the watchdog wrap it.
			if c, err := rest.HTTPClientFor(cfg); err == nil {
				httpClient = c
			}
		}
		if httpClient != nil {
			o.HTTPClient = withWatchdog(httpClient, opts.SlowRequestThreshold, log)
		}
		g := newGate(name, opts, readinessProbe(cfg, o.HTTPClient), log)
		previous := o.Cache.NewInformer
		o.Cache.NewInformer = func(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration,
			indexers toolscache.Indexers) toolscache.SharedIndexInformer {
			wrapped := Wrap(lw, g)
			var inf toolscache.SharedIndexInformer
			if previous != nil {
				inf = previous(wrapped, obj, resync, indexers)
			} else {
				inf = toolscache.NewSharedIndexInformer(wrapped, obj, resync, indexers)
			}
			return &namedInformer{SharedIndexInformer: inf, name: name}
		}
	}
}

// namedInformer runs an informer with the cluster's name in its logger: controller-runtime runs every informer
// with the same logger, so that the reflector's lines ("watch ended with error", "failed to list") would not say
// which cluster they are about.
type namedInformer struct {
	toolscache.SharedIndexInformer
	name multicluster.ClusterName
}

// Run runs the informer until stopCh is closed.
func (n *namedInformer) Run(stopCh <-chan struct{}) {
	n.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext runs the informer until ctx ends, logging with ctx's logger and the key "cluster".
func (n *namedInformer) RunWithContext(ctx context.Context) {
	n.SharedIndexInformer.RunWithContext(klog.NewContext(ctx, klog.FromContext(ctx).WithValues("cluster", n.name)))
}

// Wrap returns lw with every list and watch call held back by g while its cluster is failing, and retried once g
// lets it through when it fails because the cluster cannot be reached. The result also implements
// toolscache.ListerWatcherWithContext, which informers use.
func Wrap(lw toolscache.ListerWatcher, g *Gate) toolscache.ListerWatcher {
	return &listerWatcher{lw: toolscache.ToListerWatcherWithContext(lw), gate: g}
}

// listerWatcher is a ListerWatcher held back by a Gate.
type listerWatcher struct {
	lw   toolscache.ListerWatcherWithContext
	gate *Gate
}

var (
	_ toolscache.ListerWatcher            = &listerWatcher{}
	_ toolscache.ListerWatcherWithContext = &listerWatcher{}
)

func (l *listerWatcher) List(options metav1.ListOptions) (runtime.Object, error) {
	return l.ListWithContext(context.Background(), options)
}

func (l *listerWatcher) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return l.WatchWithContext(context.Background(), options)
}

func (l *listerWatcher) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	return through(ctx, l.gate, func() (runtime.Object, error) { return l.lw.ListWithContext(ctx, options) })
}

// WatchWithContext holds back and retries a watch that sends the initial state first (the streaming list of
// client-go's reflector, which replaces the informer's store) like a list. A plain watch from a resource version
// (the reflector resuming its watch) is not held back: while the cluster cannot be reached it fails at once as
// expired, so that the reflector lists (streams) the state again through the gate instead of resuming from its
// resource version once the cluster answers, which an API server that restarted meanwhile rejects as too old.
func (l *listerWatcher) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	resuming := options.SendInitialEvents == nil && options.ResourceVersion != "" && options.ResourceVersion != "0"
	if resuming {
		if l.gate.Failing() {
			return nil, l.gate.relist()
		}
		w, err := l.lw.WatchWithContext(ctx, options)
		switch {
		case err == nil:
			l.gate.Succeeded()
		case ctx.Err() == nil && Unreachable(err):
			l.gate.Failed(err)
			return nil, l.gate.relist()
		}
		return w, err
	}
	return through(ctx, l.gate, func() (watch.Interface, error) { return l.lw.WatchWithContext(ctx, options) })
}

// through makes a call once g lets it, and again each time it fails because the cluster cannot be reached.
func through[T any](ctx context.Context, g *Gate, call func() (T, error)) (T, error) {
	for {
		if err := g.Wait(ctx); err != nil {
			var zero T
			return zero, err
		}
		out, err := call()
		switch {
		case err == nil:
			g.Succeeded()
			return out, nil
		case ctx.Err() != nil || !Unreachable(err):
			return out, err
		}
		g.Failed(err)
	}
}
