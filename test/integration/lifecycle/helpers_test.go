// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package lifecycle

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	mcsource "sigs.k8s.io/multicluster-runtime/pkg/source"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// shortWait is how long a test waits for something that happens at once on a healthy system (a cluster's Start
// returning after its context ended, Engage returning). It is generous for a loaded 2-core CI machine.
const shortWait = 20 * time.Second

// quietPeriod is how long a test watches for something that must never happen.
const quietPeriod = 3 * time.Second

// observedCluster is a cluster.Cluster that lets the test see whether and when its Start was called and returned.
// id tells instances apart in event logs.
type observedCluster struct {
	cluster.Cluster
	id string

	once    sync.Once
	started chan struct{} // closed when Start is called
	stopped chan struct{} // closed when Start has returned
}

// Start runs the wrapped cluster and records when it starts and returns.
func (c *observedCluster) Start(ctx context.Context) error {
	first := false
	c.once.Do(func() { first = true })
	if !first {
		return errors.New("observedCluster: started twice")
	}
	close(c.started)
	defer close(c.stopped)
	return c.Cluster.Start(ctx)
}

// isStopped reports whether Start has returned.
func (c *observedCluster) isStopped() bool {
	select {
	case <-c.stopped:
		return true
	default:
		return false
	}
}

// isStarted reports whether Start has been called.
func (c *observedCluster) isStarted() bool {
	select {
	case <-c.started:
		return true
	default:
		return false
	}
}

// waitStopped fails the test unless Start returns within timeout.
func (c *observedCluster) waitStopped(t testing.TB, timeout time.Duration) {
	t.Helper()
	select {
	case <-c.stopped:
	case <-time.After(timeout):
		t.Fatalf("cluster %s: Start did not return within %s after its context ended", c.id, timeout)
	}
}

// newObservedCluster builds (does not start) a cluster for cfg whose cache only covers namespace ns, with opts
// applied after that. When the test ends it checks that the cluster, if it was started, has stopped.
func newObservedCluster(t testing.TB, cfg *rest.Config, ns, id string, opts ...cluster.Option) *observedCluster {
	t.Helper()
	cl, err := cluster.New(cfg, append([]cluster.Option{func(o *cluster.Options) {
		o.Cache.DefaultNamespaces = map[string]cache.Config{ns: {}}
	}}, opts...)...)
	if err != nil {
		t.Fatalf("cluster %s: %v", id, err)
	}
	oc := &observedCluster{Cluster: cl, id: id, started: make(chan struct{}), stopped: make(chan struct{})}
	t.Cleanup(func() {
		if !oc.isStarted() {
			return
		}
		select {
		case <-oc.stopped:
		case <-time.After(shortWait):
			t.Errorf("cluster %s still running after the test ended", id)
		}
	})
	return oc
}

// memberCluster builds an observed cluster of a fleet member, with the member's admin credentials.
func memberCluster(t testing.TB, member, ns, id string) *observedCluster {
	t.Helper()
	return newObservedCluster(t, harness.Config(t, fleet, member), ns, id)
}

// instanceOf returns the id of an observed cluster, or "?" for other clusters.
func instanceOf(cl cluster.Cluster) string {
	if oc, ok := cl.(*observedCluster); ok {
		return oc.id
	}
	return "?"
}

// testProvider is a provider driven by the test: it has no discovery loop, the test adds, replaces and removes
// clusters with the embedded Clusters, passing the manager as the Aware.
type testProvider struct {
	clusters.Clusters[cluster.Cluster]
}

var _ multicluster.Provider = &testProvider{}

func newTestProvider() *testProvider {
	return &testProvider{Clusters: clusters.New[cluster.Cluster]()}
}

// newManager builds a manager of the fleet's host with the given provider. Controller names may repeat across
// tests.
func newManager(t testing.TB, provider multicluster.Provider) mcmanager.Manager {
	t.Helper()
	return harness.NewManager(t, fleet.Host(), provider, func(o *mcmanager.Options) {
		o.Controller.SkipNameValidation = ptr.To(true)
	})
}

// ensureNamespace creates namespace ns in a member if it does not exist yet.
func ensureNamespace(t testing.TB, member, ns string) {
	t.Helper()
	err := harness.Client(t, fleet, member).Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("namespace %s in %s: %v", ns, member, err)
	}
}

// createConfigMap creates a ConfigMap in a member and returns it.
func createConfigMap(t testing.TB, member, ns, name string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"member": member}}
	if err := harness.Client(t, fleet, member).Create(t.Context(), cm); err != nil {
		t.Fatalf("creating ConfigMap %s/%s in %s: %v", ns, name, member, err)
	}
	return cm
}

// seenEvent is one event a recording handler saw.
type seenEvent struct {
	Cluster      string // the cluster name the handler was built for
	Instance     string // the id of the cluster instance the handler was built for
	Type         string // Create, Update, Delete or Generic
	Name         string // the object's name
	StateUnknown bool   // DeleteStateUnknown of a delete event
}

// eventLog records the events its handlers see.
type eventLog struct {
	mu     sync.Mutex
	events []seenEvent
}

func (l *eventLog) add(e seenEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

// count returns how many recorded events match; empty fields of want match anything.
func (l *eventLog) count(want seenEvent) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.events {
		if (want.Cluster == "" || e.Cluster == want.Cluster) &&
			(want.Instance == "" || e.Instance == want.Instance) &&
			(want.Type == "" || e.Type == want.Type) &&
			(want.Name == "" || e.Name == want.Name) {
			n++
		}
	}
	return n
}

// all returns a copy of the recorded events.
func (l *eventLog) all() []seenEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]seenEvent(nil), l.events...)
}

// handler returns a handler func that records every event, with the cluster and instance it was built for, and
// enqueues a request for the object like EnqueueRequestForObject.
func (l *eventLog) handler() mchandler.TypedEventHandlerFunc[client.Object, mcreconcile.Request] {
	return func(clusterName multicluster.ClusterName, cl cluster.Cluster) handler.TypedEventHandler[client.Object, mcreconcile.Request] {
		instance := instanceOf(cl)
		enqueue := mchandler.EnqueueRequestForObject(clusterName, cl)
		rec := func(typ string, obj client.Object, unknown bool) {
			l.add(seenEvent{Cluster: clusterName.String(), Instance: instance, Type: typ, Name: obj.GetName(), StateUnknown: unknown})
		}
		type queue = workqueue.TypedRateLimitingInterface[mcreconcile.Request]
		return handler.TypedFuncs[client.Object, mcreconcile.Request]{
			CreateFunc: func(ctx context.Context, e event.TypedCreateEvent[client.Object], q queue) {
				rec("Create", e.Object, false)
				enqueue.Create(ctx, e, q)
			},
			UpdateFunc: func(ctx context.Context, e event.TypedUpdateEvent[client.Object], q queue) {
				rec("Update", e.ObjectNew, false)
				enqueue.Update(ctx, e, q)
			},
			DeleteFunc: func(ctx context.Context, e event.TypedDeleteEvent[client.Object], q queue) {
				rec("Delete", e.Object, e.DeleteStateUnknown)
				enqueue.Delete(ctx, e, q)
			},
			GenericFunc: func(ctx context.Context, e event.TypedGenericEvent[client.Object], q queue) {
				rec("Generic", e.Object, false)
				enqueue.Generic(ctx, e, q)
			},
		}
	}
}

// configMapSource returns a multi-cluster source of ConfigMaps whose events the log records.
func (l *eventLog) configMapSource() mcsource.Source {
	return mcsource.Kind[client.Object](&corev1.ConfigMap{}, l.handler())
}

// countingSource is a multi-cluster source that counts, per cluster name, how often a per-cluster source was
// built for it, and that fails to build one where fail says so.
type countingSource struct {
	inner mcsource.Source

	mu    sync.Mutex
	calls map[string]int
	fail  func(name multicluster.ClusterName, cl cluster.Cluster) error
}

var _ mcsource.Source = &countingSource{}

func newCountingSource(inner mcsource.Source) *countingSource {
	return &countingSource{inner: inner, calls: map[string]int{}}
}

// ForCluster counts the call and builds the inner source, unless fail returns an error for the cluster.
func (s *countingSource) ForCluster(name multicluster.ClusterName, cl cluster.Cluster) (source.TypedSource[mcreconcile.Request], bool, error) {
	s.mu.Lock()
	s.calls[name.String()]++
	fail := s.fail
	s.mu.Unlock()
	if fail != nil {
		if err := fail(name, cl); err != nil {
			return nil, false, err
		}
	}
	return s.inner.ForCluster(name, cl)
}

// setFail sets (or, with nil, clears) the failure rule.
func (s *countingSource) setFail(fail func(multicluster.ClusterName, cluster.Cluster) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = fail
}

// count returns how often a source was built for the named cluster.
func (s *countingSource) count(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[name]
}

// recordingReconciler records "<cluster>/<name>" of every request it is called with and returns.
func recordingReconciler(rec *harness.Recorder) mcreconcile.Func {
	return func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
		rec.Add(req.ClusterName.String() + "/" + req.Name)
		return reconcile.Result{}, nil
	}
}

// waitFor runs f in the background and fails the test unless it returns within timeout; it returns f's error.
func waitFor(t testing.TB, timeout time.Duration, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(timeout):
		t.Fatalf("%s did not return within %s", what, timeout)
		return nil
	}
}

// mustNameCluster fails the test unless err is non-nil and names the cluster (quoted, as the library does).
func mustNameCluster(t testing.TB, err error, name string) {
	t.Helper()
	if err == nil {
		t.Fatalf("expected an error engaging cluster %q, got none", name)
	}
	if !strings.Contains(err.Error(), `"`+name+`"`) {
		t.Fatalf("error does not name cluster %q: %v", name, err)
	}
}

// notFound reports whether err says the cluster is not found.
func notFound(err error) bool {
	return errors.Is(err, multicluster.ErrClusterNotFound)
}
