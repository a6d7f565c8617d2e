// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package builder_test

import (
	"context"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	clustersprovider "sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fleet is the host and one member, member-0, for the tests whose behaviour depends on API servers; each works in
// a namespace of its own.
var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 1})
}

// createConfigMaps creates the namespace ns in the named control plane (mcenvtest.HostName for the host) and the
// ConfigMaps names in it.
func createConfigMaps(t *testing.T, controlPlane, ns string, names ...string) {
	t.Helper()
	c := harness.Client(t, fleet, controlPlane)
	objs := make([]client.Object, 0, 1+len(names))
	objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	for _, name := range names {
		objs = append(objs, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
	}
	for _, obj := range objs {
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatalf("creating %s in %s: %v", client.ObjectKeyFromObject(obj), controlPlane, err)
		}
	}
}

// member0 returns a provider of member-0 under its name; the manager starts it.
func member0(t *testing.T) *clustersprovider.Provider {
	t.Helper()
	provider := clustersprovider.New()
	if err := provider.AddConfig(t.Context(), "member-0", harness.Config(t, fleet, "member-0")); err != nil {
		t.Fatal(err)
	}
	return provider
}

// inNamespace keeps the events of objects in ns.
func inNamespace(ns string) predicate.Predicate {
	return predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetNamespace() == ns })
}

// blockingReconciler counts the reconciles that run at once: each blocks until release is closed or its context
// ends.
type blockingReconciler struct {
	release        chan struct{}
	inFlight, most atomic.Int32
	reconciled     atomic.Int32
}

func newBlockingReconciler(t *testing.T) *blockingReconciler {
	r := &blockingReconciler{release: make(chan struct{})}
	t.Cleanup(r.unblock)
	return r
}

func (r *blockingReconciler) Reconcile(ctx context.Context, _ mcreconcile.Request) (reconcile.Result, error) {
	n := r.inFlight.Add(1)
	defer r.inFlight.Add(-1)
	for most := r.most.Load(); n > most && !r.most.CompareAndSwap(most, n); most = r.most.Load() {
	}
	select {
	case <-r.release:
		r.reconciled.Add(1)
	case <-ctx.Done():
	}
	return reconcile.Result{}, nil
}

// unblock releases the blocked reconciles and every later one; it may be called more than once.
func (r *blockingReconciler) unblock() {
	select {
	case <-r.release:
	default:
		close(r.release)
	}
}
