package suite

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
)

// firstReconciles registers a ConfigMap controller that marks the first reconcile of each cluster whose name has
// the prefix.
func firstReconciles(mgr mcmanager.Manager, name, prefix string, seen *firsts) error {
	return mcbuilder.ControllerManagedBy(mgr).
		Named(name).
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			if strings.HasPrefix(req.ClusterName, prefix) {
				seen.mark(req.ClusterName)
			}
			return reconcile.Result{}, nil
		}))
}

// EngageVirtual measures, for n namespaces each with one ConfigMap, the time from the manager's start to the first
// reconcile in each virtual cluster (namespace provider).
func EngageVirtual(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, n int, floor time.Duration) error {
	c, err := client.New(fleet.Host(), client.Options{})
	if err != nil {
		return err
	}
	prefix := fmt.Sprintf("ev%d-", n)
	if err := parallel(8, n, func(i int) error { return seed(ctx, c, fmt.Sprintf("%s%04d", prefix, i), 1) }); err != nil {
		return err
	}
	shared, err := cluster.New(fleet.Host())
	if err != nil {
		return err
	}
	mgr, err := newManager(fleet.Host(), namespace.New(shared))
	if err != nil {
		return err
	}
	if err := mgr.GetLocalManager().Add(shared); err != nil {
		return err
	}
	seen := newFirsts()
	if err := firstReconciles(mgr, fmt.Sprintf("engage-virtual-%d", n), prefix, seen); err != nil {
		return err
	}
	t0 := time.Now()
	stop := run(ctx, mgr)
	err = waitUntil(ctx, 10*time.Minute, fmt.Sprintf("%d virtual clusters reconciled", n), func() bool { return seen.count() == n })
	lat := seen.since(t0)
	if stopErr := stop(); err == nil {
		err = stopErr
	}
	if err != nil {
		return err
	}
	report(r, "engage", fmt.Sprintf("virtual N=%d", n), lat, floor)
	return nil
}

// EngageSeparate measures, for n clusters each with its own cluster.Cluster (a connection and cache of its own,
// spread over the fleet's members), the time from handing them all to the provider to the first reconcile in each.
func EngageSeparate(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, n int, floor time.Duration) error {
	members := fleet.Members()
	prefix := fmt.Sprintf("es%d-", n)
	for _, m := range members {
		cfg, err := fleet.Config(m)
		if err != nil {
			return err
		}
		c, err := client.New(cfg, client.Options{})
		if err != nil {
			return err
		}
		if err := seed(ctx, c, prefix+"objects", 1); err != nil {
			return err
		}
	}
	provider := clusters.New()
	mgr, err := newManager(fleet.Host(), provider)
	if err != nil {
		return err
	}
	seen := newFirsts()
	if err := firstReconciles(mgr, fmt.Sprintf("engage-separate-%d", n), prefix, seen); err != nil {
		return err
	}
	stop := run(ctx, mgr)
	built := make([]cluster.Cluster, n)
	for i := range n {
		cfg, err := fleet.Config(members[i%len(members)])
		if err != nil {
			return err
		}
		if built[i], err = cluster.New(cfg, func(o *cluster.Options) {
			o.Cache.DefaultNamespaces = map[string]cache.Config{prefix + "objects": {}}
		}); err != nil {
			return err
		}
	}
	t0 := time.Now()
	err = parallel(n, n, func(i int) error { return provider.Add(ctx, fmt.Sprintf("%s%04d", prefix, i), built[i]) })
	if err == nil {
		err = waitUntil(ctx, 10*time.Minute, fmt.Sprintf("%d separate clusters reconciled", n), func() bool { return seen.count() == n })
	}
	lat := seen.since(t0)
	if stopErr := stop(); err == nil {
		err = stopErr
	}
	if err != nil {
		return err
	}
	report(r, "engage", fmt.Sprintf("separate N=%d", n), lat, floor)
	return nil
}

// report adds p50, p99 and the time until all of lat, with ratios of the p50 to the floor.
func report(r *Report, scenario, c string, lat []time.Duration, floor time.Duration) {
	p50 := percentile(lat, 50)
	r.Add(scenario, c, "p50", ms(p50), "ms")
	if floor > 0 {
		r.Results[len(r.Results)-1].Ratio = float64(p50) / float64(floor)
	}
	r.Add(scenario, c, "p99", ms(percentile(lat, 99)), "ms")
	r.Add(scenario, c, "all", ms(percentile(lat, 100)), "ms")
}
