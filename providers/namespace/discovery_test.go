// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespace_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Namespaces that exist when the provider starts, and namespaces created later, become virtual clusters: gettable,
// then engaged, once each. A deleted namespace stays engaged while it is Terminating (controllers may still have
// finalizers to remove in it) and is disengaged when the Namespace object goes; Get then reports it not found.
// The provider may start before the shared cluster. Nothing started for a namespace outlives it (goleak).
func TestDiscovery(t *testing.T) {
	c := hostClient(t)
	pre := harness.UniqueName("disc-pre")
	harness.CreateNamespaces(t, c, pre)

	shared := harness.NewCluster(t, fleet, mcenvtest.HostName)
	p := namespace.New(shared)
	rec := newEngageRecorder()
	startProvider(t, p, rec)
	// The provider starts first; discovery begins when the caller starts the shared cluster.
	harness.RunCluster(t, shared)

	for _, name := range []string{pre, metav1.NamespaceDefault, metav1.NamespaceSystem} {
		harness.Eventually(t, harness.ShortWait, name+" engaged", func() bool { return rec.isEngaged(name) })
	}
	vc := virtualCluster(t, p, pre)
	if vc.Name() != pre {
		t.Fatalf("Name() = %q, want %q", vc.Name(), pre)
	}
	rec.mu.Lock()
	engagedCluster := rec.clusters[multicluster.ClusterName(pre)]
	rec.mu.Unlock()
	if engagedCluster != vc {
		t.Fatal("Get returned another instance than the engaged one")
	}

	// A second Start while the first runs (the reference's examples start the provider beside the manager, which
	// starts it too) runs no second discovery: it engages nothing again and returns nil once its context ends.
	second, stopSecond := context.WithCancel(t.Context())
	secondDone := make(chan error, 1)
	go func() { secondDone <- p.Start(second, rec) }()
	harness.Consistently(t, 500*time.Millisecond, "the second Start blocking", func() bool { return len(secondDone) == 0 })
	stopSecond()
	if err := <-secondDone; err != nil {
		t.Fatalf("the second Start returned %v, want nil", err)
	}
	if n := rec.engagements(pre); n != 1 {
		t.Fatalf("%s engaged %d times, want once", pre, n)
	}

	_, err := p.Get(t.Context(), "disc-no-such-namespace")
	if !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Fatalf("Get of an unknown name: %v, want ErrClusterNotFound", err)
	}
	harness.ErrorNames(t, "Get of an unknown name", err, "disc-no-such-namespace")

	ignore := goleak.IgnoreCurrent()

	created := harness.UniqueName("disc-new")
	harness.CreateNamespaces(t, hostClient(t), created)
	harness.Eventually(t, harness.ShortWait, created+" engaged", func() bool { return rec.isEngaged(created) })

	// Terminating: still engaged.
	if err := c.Delete(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: created}}); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, harness.ShortWait, created+" terminating in the shared cache", func() bool {
		ns := &corev1.Namespace{}
		return shared.GetClient().Get(t.Context(), client.ObjectKey{Name: created}, ns) == nil && ns.DeletionTimestamp != nil
	})
	harness.Consistently(t, time.Second, created+" engaged while terminating", func() bool {
		_, err := p.Get(t.Context(), multicluster.ClusterName(created))
		return rec.isEngaged(created) && err == nil
	})

	// Gone: disengaged.
	harness.FinalizeNamespace(t, c, created)
	harness.Eventually(t, harness.ShortWait, created+" disengaged", func() bool { return rec.wasDisengaged(created) })
	_, err = p.Get(t.Context(), multicluster.ClusterName(created))
	if !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Fatalf("Get of a deleted namespace: %v, want ErrClusterNotFound", err)
	}
	if n := rec.engagements(created); n != 1 {
		t.Fatalf("%s was engaged %d times, want once", created, n)
	}
	if !rec.isEngaged(pre) {
		t.Fatalf("%s was disengaged by another namespace's deletion", pre)
	}
	harness.WaitNoLeak(t, ignore)

	// A namespace re-created under the same name is a new virtual cluster.
	harness.CreateNamespaces(t, hostClient(t), created)
	harness.Eventually(t, harness.ShortWait, created+" engaged again", func() bool { return rec.isEngaged(created) })
	if vc2 := virtualCluster(t, p, created); vc2.Name() != created {
		t.Fatalf("Name() = %q", vc2.Name())
	}
	harness.DeleteNamespace(t, c, created)
	harness.DeleteNamespace(t, c, pre)
	harness.Eventually(t, harness.ShortWait, "both disengaged", func() bool { return rec.wasDisengaged(created) && rec.wasDisengaged(pre) })
}

// Stopping the provider (its Start returning) disengages every virtual cluster and forgets them; the provider can
// then be started again and discovers the namespaces anew.
func TestStopDisengagesEverythingAndRestarts(t *testing.T) {
	name := harness.UniqueName("restart")
	harness.CreateNamespaces(t, hostClient(t), name)
	p := namespace.New(startSharedCluster(t))
	first := newEngageRecorder()
	stop := startProvider(t, p, first)
	// Both are engaged before the provider stops: the check below needs each to have been engaged.
	harness.Eventually(t, harness.ShortWait, name+" and default engaged", func() bool {
		return first.isEngaged(name) && first.isEngaged(metav1.NamespaceDefault)
	})

	stop()
	if !first.wasDisengaged(name) || !first.wasDisengaged(metav1.NamespaceDefault) {
		t.Fatal("virtual clusters are still engaged after Start returned")
	}
	if _, err := p.Get(t.Context(), multicluster.ClusterName(name)); !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Fatalf("Get after Start returned: %v, want ErrClusterNotFound", err)
	}

	second := newEngageRecorder()
	startProvider(t, p, second)
	harness.Eventually(t, harness.ShortWait, name+" engaged again", func() bool { return second.isEngaged(name) })
	harness.DeleteNamespace(t, hostClient(t), name)
	harness.Eventually(t, harness.ShortWait, name+" disengaged", func() bool { return second.wasDisengaged(name) })
}
