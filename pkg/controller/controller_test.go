// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package controller_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	mccontext "sigs.k8s.io/multicluster-runtime/pkg/context"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// newManager returns a multi-cluster manager around a controller-runtime manager of an unreachable host. Creating
// it needs no API server, and neither do controllers whose sources are fakes.
func newManager(t *testing.T) mcmanager.Manager {
	t.Helper()
	mgr, err := manager.New(&rest.Config{Host: "http://127.0.0.1:1"}, manager.Options{
		Metrics:    metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatalf("creating the host manager: %v", err)
	}
	m, err := mcmanager.WithMultiCluster(mgr, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fakeCluster is a distinct cluster.Cluster value; its methods panic.
type fakeCluster struct {
	cluster.Cluster
	name multicluster.ClusterName
}

// startedSource is a per-cluster source that was started.
type startedSource struct {
	cluster multicluster.ClusterName
	ctx     context.Context
	queue   workqueue.TypedRateLimitingInterface[mcreconcile.Request]
}

// fakeSource is a multi-cluster source that records the clusters it is asked for and reports the per-cluster
// sources that start.
type fakeSource struct {
	err     error
	started chan startedSource

	mu    sync.Mutex
	asked []multicluster.ClusterName
}

func newFakeSource() *fakeSource {
	return &fakeSource{started: make(chan startedSource, 100)}
}

func (s *fakeSource) ForCluster(name multicluster.ClusterName, _ cluster.Cluster) (source.TypedSource[mcreconcile.Request], bool, error) {
	s.mu.Lock()
	s.asked = append(s.asked, name)
	s.mu.Unlock()
	if s.err != nil {
		return nil, false, s.err
	}
	if name == "ignored" {
		return nil, false, nil
	}
	return source.TypedFunc[mcreconcile.Request](func(ctx context.Context, q workqueue.TypedRateLimitingInterface[mcreconcile.Request]) error {
		s.started <- startedSource{cluster: name, ctx: ctx, queue: q}
		return nil
	}), true, nil
}

func (s *fakeSource) askedFor() []multicluster.ClusterName {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]multicluster.ClusterName(nil), s.asked...)
}

// waitStarted returns the next per-cluster source that starts.
func (s *fakeSource) waitStarted(t *testing.T) startedSource {
	t.Helper()
	return receive(t, s.started, "no per-cluster source started")
}

// waitStopped fails the test with what unless the source's context ends in time.
func (st startedSource) waitStopped(t *testing.T, what string) {
	t.Helper()
	receive(t, st.ctx.Done(), what)
}

// checkRunning fails the test with what if the source's context has ended.
func (st startedSource) checkRunning(t *testing.T, what string) {
	t.Helper()
	if st.ctx.Err() != nil {
		t.Error(what)
	}
}

// engage engages a new fakeCluster under name with c until the returned function, or the test, ends it.
func engage(t *testing.T, c multicluster.Aware, name multicluster.ClusterName) (disengage context.CancelFunc) {
	t.Helper()
	ctx, disengage := context.WithCancel(t.Context())
	t.Cleanup(disengage)
	if err := c.Engage(ctx, name, &fakeCluster{name: name}); err != nil {
		t.Fatal(err)
	}
	return disengage
}

// receive returns the next value from ch, failing the test with what if none comes in time.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal(what)
		var zero T
		return zero
	}
}

// newController returns an unmanaged controller, of a manager without a provider, that reconciles with r.
func newController(t *testing.T, name string, r mcreconcile.Reconciler) mccontroller.Controller {
	t.Helper()
	c, err := mccontroller.NewUnmanaged(name, newManager(t), mccontroller.Options{Reconciler: r})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// watchFake registers a new fakeSource with c and returns it.
func watchFake(t *testing.T, c mccontroller.Controller) *fakeSource {
	t.Helper()
	src := newFakeSource()
	if err := c.MultiClusterWatch(src); err != nil {
		t.Fatal(err)
	}
	return src
}

// blockingReconciler is a reconciler whose reconciles return only when their context ends (with its error).
type blockingReconciler struct{ running chan struct{} }

func newBlockingReconciler() *blockingReconciler {
	return &blockingReconciler{running: make(chan struct{}, 1)}
}

func (b *blockingReconciler) Reconcile(ctx context.Context, _ mcreconcile.Request) (reconcile.Result, error) {
	b.running <- struct{}{}
	select {
	case <-ctx.Done():
		return reconcile.Result{}, ctx.Err()
	case <-time.After(wait.ForeverTestTimeout):
		return reconcile.Result{}, errors.New("the reconcile context was not cancelled")
	}
}

// inFlight starts a reconcile of req by c in the background, returns once it runs in the reconciler, and returns
// the channel its error arrives on.
func (b *blockingReconciler) inFlight(t *testing.T, c mccontroller.Controller, req mcreconcile.Request) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := c.Reconcile(t.Context(), req)
		done <- err
	}()
	receive(t, b.running, "the reconcile did not start")
	return done
}

// reconciled is one call of the reconciler.
type reconciled struct {
	req        mcreconcile.Request
	ctxCluster multicluster.ClusterName
	ctxHas     bool
}

// recorder is a reconciler that reports its calls.
type recorder struct{ calls chan reconciled }

func newRecorder() *recorder { return &recorder{calls: make(chan reconciled, 100)} }

func (r *recorder) Reconcile(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
	name, ok := mccontext.ClusterFrom(ctx)
	r.calls <- reconciled{req: req, ctxCluster: name, ctxHas: ok}
	return reconcile.Result{}, nil
}

func (r *recorder) next(t *testing.T) reconciled {
	t.Helper()
	return receive(t, r.calls, "the reconciler was not called")
}

func (r *recorder) none(t *testing.T) {
	t.Helper()
	select {
	case c := <-r.calls:
		t.Errorf("the reconciler was called with %v", c.req)
	default:
	}
}

func request(clusterName multicluster.ClusterName, name string) mcreconcile.Request {
	return mcreconcile.Request{
		Request:     reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}},
		ClusterName: clusterName,
	}
}

func TestNewRequiresAReconciler(t *testing.T) {
	_, err := mccontroller.NewUnmanaged("no-reconciler", newManager(t), mccontroller.Options{})
	if err == nil || !strings.Contains(err.Error(), `"no-reconciler"`) {
		t.Errorf("NewUnmanaged() error = %v, want one naming the controller", err)
	}
	_, err = mccontroller.New("no-reconciler", newManager(t), mccontroller.Options{})
	if err == nil {
		t.Error("New() without a reconciler succeeded")
	}
}

func TestMultiClusterWatchNil(t *testing.T) {
	c := newController(t, "nil-source", newRecorder())
	if err := c.MultiClusterWatch(nil); err == nil {
		t.Error("MultiClusterWatch(nil) succeeded")
	}
}

func TestReconcile(t *testing.T) {
	r := newRecorder()
	c := newController(t, "reconcile", r)
	disengage := engage(t, c, "a")

	tests := []struct {
		name       string
		req        mcreconcile.Request
		wantCalled bool
	}{
		{name: "engaged cluster", req: request("a", "obj"), wantCalled: true},
		{name: "host cluster", req: request("", "obj"), wantCalled: true},
		{name: "unknown cluster is dropped", req: request("unknown", "obj")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.Reconcile(t.Context(), tt.req)
			if err != nil || !res.IsZero() {
				t.Errorf("Reconcile() = (%+v, %v), want success", res, err)
			}
			if !tt.wantCalled {
				r.none(t)
				return
			}
			got := r.next(t)
			if got.req != tt.req {
				t.Errorf("reconciler got %v, want %v", got.req, tt.req)
			}
			if !got.ctxHas || got.ctxCluster != tt.req.ClusterName {
				t.Errorf("cluster in the reconciler's context = (%q, %v), want (%q, true)", got.ctxCluster, got.ctxHas, tt.req.ClusterName)
			}
		})
	}

	disengage()
	if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, wait.ForeverTestTimeout, true, func(ctx context.Context) (bool, error) {
		if _, err := c.Reconcile(ctx, request("a", "obj")); err != nil {
			return false, err
		}
		select {
		case <-r.calls:
			return false, nil
		default:
			return true, nil
		}
	}); err != nil {
		t.Errorf("requests of a disengaged cluster kept reaching the reconciler: %v", err)
	}
}

func TestReconcileIsCancelledWhenItsClusterLeaves(t *testing.T) {
	r := newBlockingReconciler()
	c := newController(t, "cancel-in-flight", r)
	disengage := engage(t, c, "a")

	done := r.inFlight(t, c, request("a", "obj"))
	disengage()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Reconcile() error = %v, want context.Canceled", err)
	}
}

func TestClusterNotFoundFromTheReconcilerIsNotSwallowed(t *testing.T) {
	// The controller itself only drops requests of clusters that are gone before the reconcile; the builder's
	// ClusterNotFoundWrapper handles the error coming out of the reconciler.
	c, err := mccontroller.NewUnmanaged("not-found-error", newManager(t), mccontroller.Options{
		Reconciler: mcreconcile.Func(func(context.Context, mcreconcile.Request) (reconcile.Result, error) {
			return reconcile.Result{}, multicluster.ErrClusterNotFound
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Reconcile(t.Context(), request("", "obj")); !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Errorf("Reconcile() error = %v, want ErrClusterNotFound", err)
	}
}
