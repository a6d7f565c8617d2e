// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package harness

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
)

// ShortWait bounds what happens at once on a healthy system; generous for a loaded 2-core machine.
const ShortWait = 30 * time.Second

// RunCluster starts cl and runs it until the test ends; the test then waits for it to stop.
func RunCluster(t testing.TB, cl cluster.Cluster) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	done := make(chan error, 1)
	go func() { done <- cl.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("cluster: %v", err)
		}
	})
}

// CreateNamespaces creates namespaces through c or fails the test.
func CreateNamespaces(t testing.TB, c client.Client, names ...string) {
	t.Helper()
	for _, name := range names {
		if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			t.Fatalf("creating namespace %s: %v", name, err)
		}
	}
}

// DeleteNamespace deletes a namespace and, as envtest has no namespace controller, removes its "kubernetes"
// finalizer through the namespaces/finalize sub-resource, so that the Namespace object goes away. Objects left in
// the namespace stay in storage; tests delete them first.
func DeleteNamespace(t testing.TB, c client.Client, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := c.Delete(t.Context(), ns); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("deleting namespace %s: %v", name, err)
	}
	FinalizeNamespace(t, c, name)
}

// FinalizeNamespace removes the finalizers of a Terminating namespace, which deletes it.
func FinalizeNamespace(t testing.TB, c client.Client, name string) {
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

// ConfigMap returns a ConfigMap (not created).
func ConfigMap(ns, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
}

// CreateConfigMapWithClient creates a ConfigMap through c or fails the test.
func CreateConfigMapWithClient(t testing.TB, c client.Client, ns, name string, data map[string]string) {
	t.Helper()
	if err := c.Create(t.Context(), ConfigMap(ns, name, data)); err != nil {
		t.Fatalf("creating configmap %s/%s: %v", ns, name, err)
	}
}

// ErrorNames fails the test unless err is non-nil and names (quoted) every one of names.
func ErrorNames(t testing.TB, what string, err error, names ...string) {
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

// WaitNoLeak waits (bounded) for the goroutines started since ignore was taken (goleak.IgnoreCurrent) to end, then
// verifies none is left, ignoring the process's shared goroutines (LeakOptions).
func WaitNoLeak(t *testing.T, ignore goleak.Option) {
	t.Helper()
	opts := LeakOptions(ignore)
	_ = wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, ShortWait, true, func(context.Context) (bool, error) {
		return goleak.Find(opts...) == nil, nil
	})
	goleak.VerifyNone(t, opts...)
}
