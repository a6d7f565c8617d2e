package multi_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fleet is shared by the tests of this package: a host and two members. Each test works in namespaces of its own.
var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 2})
}

// runs counts the runs of each test namespace, so that tests can run again (go test -count) against the same
// fleet: the first run uses the base name, later runs a numbered one.
var runs = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// uniqueNamespace returns a namespace name starting with base that no earlier run of the package used.
func uniqueNamespace(base string) string {
	runs.Lock()
	defer runs.Unlock()
	n := runs.n[base]
	runs.n[base]++
	if n == 0 {
		return base
	}
	return fmt.Sprintf("%s-%d", base, n)
}

// shortTimeout bounds waits for what takes well under a second when it works.
const shortTimeout = 30 * time.Second

// quiet is how long a test watches for something that must not happen, after a fence proved that events sent
// before it have been delivered.
const quiet = time.Second

// newManager returns a manager of the host for provider; controller names may repeat across the tests.
func newManager(t *testing.T, provider multicluster.Provider) mcmanager.Manager {
	t.Helper()
	return harness.NewManager(t, fleet.Host(), provider, func(o *mcmanager.Options) {
		o.Controller.SkipNameValidation = ptr.To(true)
	})
}

// reconcileRecorder registers a controller of ConfigMaps in ns with mgr that records
// "<cluster>/<name>=<data.owner>" for every ConfigMap it reads back from its cluster.
func reconcileRecorder(t *testing.T, mgr mcmanager.Manager, ns string) *harness.Recorder {
	t.Helper()
	rec := harness.NewRecorder()
	err := mcbuilder.ControllerManagedBy(mgr).
		Named("multi-test").
		For(&corev1.ConfigMap{}).
		WithEventFilter(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetNamespace() == ns })).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return reconcile.Result{}, err
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			rec.Add(req.ClusterName.String() + "/" + cm.Name + "=" + cm.Data["owner"])
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// createNamespace creates ns on each named control plane.
func createNamespace(t *testing.T, ns string, controlPlanes ...string) {
	t.Helper()
	for _, name := range controlPlanes {
		err := harness.Client(t, fleet, name).Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating namespace %s on %s: %v", ns, name, err)
		}
	}
}

// createConfigMap creates a ConfigMap on the named control plane, with data owner=<control plane> plus data.
func createConfigMap(t *testing.T, controlPlane, ns, name string, data map[string]string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"owner": controlPlane}}
	for k, v := range data {
		cm.Data[k] = v
	}
	if err := harness.Client(t, fleet, controlPlane).Create(t.Context(), cm); err != nil {
		t.Fatalf("creating ConfigMap %s/%s on %s: %v", ns, name, controlPlane, err)
	}
}

// observedCluster is a cluster whose Start is observed: stopped is closed once it returned.
type observedCluster struct {
	cluster.Cluster
	stopped chan struct{}
}

func newObservedCluster(t *testing.T, member string) *observedCluster {
	t.Helper()
	return &observedCluster{Cluster: harness.NewCluster(t, fleet, member), stopped: make(chan struct{})}
}

func (c *observedCluster) Start(ctx context.Context) error {
	defer close(c.stopped)
	return c.Cluster.Start(ctx)
}

// waitStopped fails the test unless the cluster's Start returns within shortTimeout.
func (c *observedCluster) waitStopped(t *testing.T) {
	t.Helper()
	select {
	case <-c.stopped:
	case <-time.After(shortTimeout):
		t.Fatalf("the cluster was not stopped within %s", shortTimeout)
	}
}
