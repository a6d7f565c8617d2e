// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package patterns

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	clustersprovider "sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// members are the members the fleet starts with. Tests that add members of their own remove them again.
var members = []string{"member-0", "member-1", "member-2"}

// host is the name under which the fleet kit knows the host control plane.
const host = mcenvtest.HostName

// shortTimeout bounds waits for things that happen within seconds when the behaviour works, so that a broken
// behaviour fails fast instead of after harness.DefaultTimeout.
const shortTimeout = 30 * time.Second

// quiet is how long Consistently watches for something that must not happen. Events that would cause it have been
// delivered before the check starts (see the callers), so a short window suffices.
const quiet = time.Second

// key names one object of one cluster; the host cluster has the empty name.
func key(clusterName multicluster.ClusterName, namespace, name string) string {
	return clusterName.String() + "/" + namespace + "/" + name
}

// createNamespace creates ns on each named control plane (host for the host cluster).
func createNamespace(t *testing.T, ns string, controlPlanes ...string) {
	t.Helper()
	for _, name := range controlPlanes {
		err := harness.Client(t, fleet, name).Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating namespace %s on %s: %v", ns, name, err)
		}
	}
}

// createConfigMap creates a ConfigMap directly (uncached) on the named control plane and returns it.
func createConfigMap(t *testing.T, controlPlane, ns, name string, data map[string]string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
	if err := harness.Client(t, fleet, controlPlane).Create(t.Context(), cm); err != nil {
		t.Fatalf("creating ConfigMap %s/%s on %s: %v", ns, name, controlPlane, err)
	}
	return cm
}

// updateConfigMapData replaces the data of a ConfigMap on the named control plane.
func updateConfigMapData(t *testing.T, controlPlane, ns, name string, data map[string]string) {
	t.Helper()
	c := harness.Client(t, fleet, controlPlane)
	cm := &corev1.ConfigMap{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
		t.Fatalf("getting ConfigMap %s/%s on %s: %v", ns, name, controlPlane, err)
	}
	cm.Data = data
	if err := c.Update(t.Context(), cm); err != nil {
		t.Fatalf("updating ConfigMap %s/%s on %s: %v", ns, name, controlPlane, err)
	}
}

// memberProvider returns a provider of fresh (not started) clusters for the named members, each under the
// member's name. The provider starts them when the manager starts it.
func memberProvider(t *testing.T, names ...string) *clustersprovider.Provider {
	t.Helper()
	provider := clustersprovider.New()
	for _, name := range names {
		if err := provider.Add(t.Context(), multicluster.ClusterName(name), harness.NewCluster(t, fleet, name)); err != nil {
			t.Fatalf("adding %s to the provider: %v", name, err)
		}
	}
	return provider
}

// inNamespace keeps the events of objects in ns: members and the host are shared by the tests of the package, and
// each test works in its own namespace.
func inNamespace(ns string) predicate.Predicate {
	return predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetNamespace() == ns })
}

// eventuallyNoError polls f until it returns nil, and reports f's last error if it never does.
func eventuallyNoError(t *testing.T, timeout time.Duration, what string, f func() error) {
	t.Helper()
	var last error
	defer func() {
		if t.Failed() && last != nil {
			t.Logf("last error while waiting for %s: %v", what, last)
		}
	}()
	harness.Eventually(t, timeout, what, func() bool {
		last = f()
		return last == nil
	})
}

// engageRecorder is a cluster-aware runnable that records the clusters it is engaged with.
type engageRecorder struct {
	started chan struct{}
	once    sync.Once

	mu       sync.Mutex
	engaged  map[multicluster.ClusterName]cluster.Cluster
	contexts map[string]context.Context
	count    map[string]int
}

func newEngageRecorder() *engageRecorder {
	return &engageRecorder{
		started:  make(chan struct{}),
		engaged:  map[multicluster.ClusterName]cluster.Cluster{},
		contexts: map[string]context.Context{},
		count:    map[string]int{},
	}
}

func (r *engageRecorder) Start(ctx context.Context) error {
	r.once.Do(func() { close(r.started) })
	<-ctx.Done()
	return nil
}

func (r *engageRecorder) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.engaged[name] = cl
	r.contexts[name.String()] = ctx
	r.count[name.String()]++
	return nil
}

// get returns the cluster last engaged under name, whether its engagement is live, and how often name was engaged.
func (r *engageRecorder) get(name string) (cl cluster.Cluster, live bool, count int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx := r.contexts[name]
	return r.engaged[multicluster.ClusterName(name)], ctx != nil && ctx.Err() == nil, r.count[name]
}

func (r *engageRecorder) isStarted() bool {
	select {
	case <-r.started:
		return true
	default:
		return false
	}
}

// closed reports whether ch is closed, without blocking.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
