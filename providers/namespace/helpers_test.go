package namespace_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// shortWait bounds what happens at once on a healthy system; generous for a loaded 2-core machine.
const shortWait = 30 * time.Second

// uniqueName returns a namespace name for a test: prefix, a dash and a random suffix.
func uniqueName(prefix string) string {
	return prefix + "-" + rand.String(5)
}

// hostClient returns a direct client of the host control plane.
func hostClient(t testing.TB) client.Client {
	t.Helper()
	return harness.Client(t, fleet, mcenvtest.HostName)
}

// startSharedCluster builds the shared cluster of the host and runs it until the test ends, as a provider's
// caller does; the test waits for it to stop.
func startSharedCluster(t testing.TB) cluster.Cluster {
	t.Helper()
	cl := harness.NewCluster(t, fleet, mcenvtest.HostName)
	runCluster(t, cl)
	return cl
}

// runCluster runs cl until the test ends; the test waits for it to stop.
func runCluster(t testing.TB, cl cluster.Cluster) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	done := make(chan error, 1)
	go func() { done <- cl.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("shared cluster: %v", err)
		}
	})
}

// startProvider runs p.Start with aware until the test ends or stop is called; either way the test waits for it
// to return.
func startProvider(t testing.TB, p *namespace.Provider, aware interface {
	Engage(context.Context, multicluster.ClusterName, cluster.Cluster) error
}) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	done := make(chan error, 1)
	go func() { done <- p.Start(ctx, aware) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("provider: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// createNamespaces creates namespaces on the host.
func createNamespaces(t testing.TB, names ...string) {
	t.Helper()
	c := hostClient(t)
	for _, name := range names {
		if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			t.Fatalf("creating namespace %s: %v", name, err)
		}
	}
}

// deleteNamespace deletes a namespace and, as envtest has no namespace controller, removes its "kubernetes"
// finalizer through the namespaces/finalize sub-resource, so that the Namespace object goes away. Objects left in
// the namespace stay in storage; tests delete them first.
func deleteNamespace(t testing.TB, c client.Client, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Delete(t.Context(), ns); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("deleting namespace %s: %v", name, err)
	}
	finalizeNamespace(t, c, name)
}

// finalizeNamespace removes the finalizers of a Terminating namespace, which deletes it.
func finalizeNamespace(t testing.TB, c client.Client, name string) {
	t.Helper()
	ns := &corev1.Namespace{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: name}, ns); err != nil {
		if apierrors.IsNotFound(err) {
			return
		}
		t.Fatalf("getting namespace %s: %v", name, err)
	}
	ns.Spec.Finalizers = nil
	if err := c.SubResource("finalize").Update(t.Context(), ns); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("finalizing namespace %s: %v", name, err)
	}
}

// createConfigMap creates a ConfigMap on the host.
func createConfigMap(t testing.TB, c client.Client, ns, name string, data map[string]string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
	if err := c.Create(t.Context(), cm); err != nil {
		t.Fatalf("creating configmap %s/%s: %v", ns, name, err)
	}
}

// engageRecorder is a multicluster.Aware that records the clusters engaged with it and their contexts.
type engageRecorder struct {
	mu       sync.Mutex
	engaged  map[string]context.Context
	clusters map[multicluster.ClusterName]cluster.Cluster
	count    map[string]int
}

func newEngageRecorder() *engageRecorder {
	return &engageRecorder{engaged: map[string]context.Context{}, clusters: map[multicluster.ClusterName]cluster.Cluster{}, count: map[string]int{}}
}

func (r *engageRecorder) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.engaged[name.String()] = ctx
	r.clusters[name] = cl
	r.count[name.String()]++
	return nil
}

// isEngaged reports whether name was engaged and its context has not ended.
func (r *engageRecorder) isEngaged(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, ok := r.engaged[name]
	return ok && ctx.Err() == nil
}

// wasDisengaged reports whether name was engaged and its context has ended since.
func (r *engageRecorder) wasDisengaged(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, ok := r.engaged[name]
	return ok && ctx.Err() != nil
}

func (r *engageRecorder) engagements(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count[name]
}

// virtualCluster waits until the provider knows the namespace and returns its virtual cluster.
func virtualCluster(t testing.TB, p *namespace.Provider, name string) *namespace.NamespacedCluster {
	t.Helper()
	var cl cluster.Cluster
	harness.Eventually(t, shortWait, "virtual cluster "+name, func() bool {
		var err error
		cl, err = p.Get(t.Context(), multicluster.ClusterName(name))
		return err == nil
	})
	nc, ok := cl.(*namespace.NamespacedCluster)
	if !ok {
		t.Fatalf("Get returned %T, want *namespace.NamespacedCluster", cl)
	}
	return nc
}

// errorNames fails the test unless err is non-nil and names every one of names.
func errorNames(t testing.TB, what string, err error, names ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	for _, name := range names {
		if !strings.Contains(err.Error(), strconv.Quote(name)) {
			t.Fatalf("%s: error %q does not name %q", what, err, name)
		}
	}
}

// waitNoLeak waits (bounded) for the goroutines started since ignore was taken to end, then verifies none is left.
func waitNoLeak(t *testing.T, ignore goleak.Option) {
	t.Helper()
	opts := harness.LeakOptions(ignore)
	_ = wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, shortWait, true, func(context.Context) (bool, error) {
		return goleak.Find(opts...) == nil, nil
	})
	goleak.VerifyNone(t, opts...)
}

// goleakIgnoreCurrent records the goroutines running now, for waitNoLeak.
func goleakIgnoreCurrent() goleak.Option {
	return goleak.IgnoreCurrent()
}
