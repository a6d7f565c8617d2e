// Package fairness holds integration tests, on real control planes, of how the multi-cluster controller shares its
// workers between clusters: a cluster with a deep backlog gets its share of the workers, not all of them.
package fairness

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// backlog is how many ConfigMaps the busy cluster has when it is engaged: as many requests queued at once.
const backlog = 1000

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 2})
}

// orderLog records the clusters of the reconciles, in order.
type orderLog struct {
	mu    sync.Mutex
	order []string
}

func (l *orderLog) add(cluster string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.order = append(l.order, cluster)
}

// before returns how many reconciles of other clusters came before the first of cluster, or -1 if it has none.
func (l *orderLog) before(cluster string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, c := range l.order {
		if c == cluster {
			return i
		}
	}
	return -1
}

// starvation runs one controller with one worker over a busy cluster whose whole backlog is queued and a quiet
// cluster with one object queued after it, and returns how many of the busy cluster's reconciles ran before the
// quiet cluster's first. newQueue picks the queue; nil is the default.
func starvation(t *testing.T, ns string, newQueue func(string, workqueue.TypedRateLimiter[mcreconcile.Request]) workqueue.TypedRateLimitingInterface[mcreconcile.Request]) int {
	t.Helper()
	provider := clusters.New()
	mgr := harness.NewManager(t, fleet.Host(), provider, func(o *mcmanager.Options) {
		o.Controller.SkipNameValidation = ptr.To(true)
	})
	gate := make(chan struct{})
	gated := make(chan struct{})
	var once sync.Once
	log := &orderLog{}
	err := mcbuilder.ControllerManagedBy(mgr).
		Named("fairness").
		For(&corev1.ConfigMap{}).
		WithOptions(mccontroller.Options{MaxConcurrentReconciles: 1, NewQueue: newQueue}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			// The first reconcile holds the only worker until the test has queued everything.
			once.Do(func() {
				close(gated)
				<-gate
			})
			log.add(req.ClusterName)
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	ready := mcmanager.FleetReadyzCheck(mgr)
	harness.StartManager(t, t.Context(), mgr)

	add := func(name, member string) {
		t.Helper()
		cl := harness.NewCluster(t, fleet, member, func(o *cluster.Options) {
			o.Cache.DefaultNamespaces = map[string]cache.Config{ns: {}}
		})
		if err := provider.Add(t.Context(), name, cl); err != nil {
			t.Fatal(err)
		}
	}
	add("busy", "member-0")
	select {
	case <-gated:
	case <-time.After(harness.DefaultTimeout):
		t.Fatal("no reconcile started")
	}
	// Once a cluster's source has synced, every object it listed has been handed to the queue.
	harness.Eventually(t, 0, "busy's backlog queued", func() bool { return ready(nil) == nil })
	add("quiet", "member-1")
	harness.Eventually(t, 0, "quiet's object queued", func() bool { return ready(nil) == nil })
	close(gate)

	harness.Eventually(t, 0, "quiet reconciled", func() bool { return log.before("quiet") >= 0 })
	return log.before("quiet")
}

// setUp creates a namespace with backlog ConfigMaps in member-0 and one in member-1.
func setUp(t *testing.T, prefix string) string {
	t.Helper()
	ns := prefix + "-" + strings.ToLower(fmt.Sprint(time.Now().UnixNano()%100000))
	for _, member := range []string{"member-0", "member-1"} {
		c := harness.Client(t, fleet, member)
		if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	c := harness.Client(t, fleet, "member-0")
	for i := range backlog {
		if err := c.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%04d", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := harness.Client(t, fleet, "member-1").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "only"}}); err != nil {
		t.Fatal(err)
	}
	return ns
}

// With the default (fair) queue, a quiet cluster whose request arrives behind a busy cluster's backlog of a
// thousand requests is reconciled after at most a couple of the busy cluster's: clusters take turns. The same run
// with controller-runtime's FIFO queue shows what fairness prevents: the quiet cluster waits for the whole backlog.
func TestBusyClusterDoesNotStarveQuietOne(t *testing.T) {
	ns := setUp(t, "fair")

	fair := starvation(t, ns, nil)
	t.Logf("fair queue: %d reconciles of busy before quiet's", fair)
	if fair > 2 {
		t.Errorf("with the fair queue, %d reconciles of the busy cluster ran before the quiet cluster's; want at most 2", fair)
	}

	fifo := starvation(t, ns, mccontroller.NewFIFOQueue[mcreconcile.Request])
	t.Logf("FIFO queue: %d reconciles of busy before quiet's", fifo)
	if fifo < backlog/2 {
		t.Errorf("with the FIFO queue only %d reconciles of the busy cluster ran before the quiet cluster's; the test "+
			"does not build the backlog it means to", fifo)
	}
}
