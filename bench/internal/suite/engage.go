package suite

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
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
			if name := req.ClusterName.String(); strings.HasPrefix(name, prefix) {
				seen.mark(name)
			}
			return reconcile.Result{}, nil
		}))
}

// EngageVirtual measures, for n namespaces each with one ConfigMap, the time from the manager's start to the first
// reconcile in each virtual cluster (namespace provider).
func EngageVirtual(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, n int, f Floors) error {
	c, err := writer(fleet.Host())
	if err != nil {
		return err
	}
	prefix := fmt.Sprintf("ev%d-", n)
	if err := parallel(8, n, func(i int) error { return seed(ctx, c, fmt.Sprintf("%s%04d", prefix, i), prefix, 1) }); err != nil {
		return err
	}
	shared, err := virtualClusters(fleet.Host(), prefix)
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
	report(r, "engage", fmt.Sprintf("virtual N=%d", n), lat, f)
	return nil
}

// EngageSeparate measures, for n clusters each with its own cluster.Cluster (a connection and cache of its own,
// spread over the fleet's members), the time from handing them all to the provider to the first reconcile in each.
//
// With sharedMapper, the clusters of one member share one RESTMapper (cluster.Options.MapperProvider) instead of
// each discovering the API on its own: what a fleet of clusters serving the same APIs can do to engage faster and
// use less memory per cluster.
func EngageSeparate(ctx context.Context, fleet *mcenvtest.Fleet, r *Report, n int, f Floors, sharedMapper bool) error {
	members := fleet.Members()
	prefix := fmt.Sprintf("es%d-", n)
	kind := "separate"
	if sharedMapper {
		prefix = fmt.Sprintf("esm%d-", n)
		kind = "separate, shared mapper"
	}
	ns := prefix + "objects"
	for _, m := range members {
		cfg, err := fleet.Config(m)
		if err != nil {
			return err
		}
		c, err := writer(cfg)
		if err != nil {
			return err
		}
		if err := seed(ctx, c, ns, prefix, 1); err != nil {
			return err
		}
	}
	provider := clusters.New()
	mgr, err := newManager(fleet.Host(), provider)
	if err != nil {
		return err
	}
	seen := newFirsts()
	if err := firstReconciles(mgr, "engage-"+strings.TrimSuffix(prefix, "-"), prefix, seen); err != nil {
		return err
	}
	stop := run(ctx, mgr)
	mappers := map[string]meta.RESTMapper{}
	built := make([]cluster.Cluster, n)
	for i := range n {
		member := members[i%len(members)]
		cfg, err := fleet.Config(member)
		if err != nil {
			_ = stop()
			return err
		}
		var opts []cluster.Option
		if sharedMapper {
			if mappers[member] == nil {
				if mappers[member], err = newMapper(cfg); err != nil {
					_ = stop()
					return err
				}
			}
			mapper := mappers[member]
			opts = append(opts, func(o *cluster.Options) {
				o.MapperProvider = func(*rest.Config, *http.Client) (meta.RESTMapper, error) { return mapper, nil }
			})
		}
		if built[i], err = separateCluster(cfg, ns, opts...); err != nil {
			_ = stop()
			return err
		}
	}
	t0 := time.Now()
	err = parallel(min(n, 100), n, func(i int) error {
		return provider.Add(ctx, multicluster.ClusterName(fmt.Sprintf("%s%04d", prefix, i)), built[i])
	})
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
	report(r, "engage", fmt.Sprintf("%s N=%d", kind, n), lat, f)
	return nil
}

// newMapper returns a RESTMapper of the API server of cfg, as controller-runtime makes for every cluster.
func newMapper(cfg *rest.Config) (meta.RESTMapper, error) {
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	return apiutil.NewDynamicRESTMapper(cfg, httpClient)
}

// report adds p50, p99 and the time until all of lat, with the ratio of each to the floor.
func report(r *Report, scenario, c string, lat []time.Duration, f Floors) {
	p50 := percentile(lat, 50)
	r.AddRatio(scenario, c, "p50", p50, f.Event)
	r.AddRatio(scenario, c, "p99", percentile(lat, 99), f.Event)
	r.AddRatio(scenario, c, "all", percentile(lat, 100), f.Event)
	if t := f.EngageTarget(); t > 0 {
		r.Add(scenario, c, "p50 ÷ target (3×floor + sync)", float64(p50)/float64(t), "×")
	}
	if t := f.StrictEngageTarget(); t > 0 {
		r.Add(scenario, c, "p50 ÷ strict target (sync polled every ms)", float64(p50)/float64(t), "×")
	}
}
