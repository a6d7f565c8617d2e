// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package patterns

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Late registration: after mgr.Start, once every member is engaged (an early controller has reconciled an object
// in each), a controller built then reconciles the objects that already exist in every member and those created
// afterwards; and a cluster-aware runnable added then is started and engaged exactly once with every live member,
// with the instance the provider serves.
func TestControllerAndRunnableAddedAfterStart(t *testing.T) {
	const ns = "pat-late"
	createNamespace(t, ns, members...)

	provider := memberProvider(t, members...)
	mgr := harness.NewManager(t, fleet.Host(), provider, nil)
	early := harness.NewRecorder()
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named("patterns-late-early").
		For(&corev1.ConfigMap{}).
		WithEventFilter(inNamespace(ns)).
		Complete(recordingReconciler(early)); err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	for _, name := range members {
		createConfigMap(t, name, ns, "before", nil)
	}
	for _, name := range members {
		harness.Eventually(t, 0, name+" engaged", func() bool { return early.Has(key(multicluster.ClusterName(name), ns, "before")) })
	}

	late := harness.NewRecorder()
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named("patterns-late-controller").
		For(&corev1.ConfigMap{}).
		WithEventFilter(inNamespace(ns)).
		Complete(recordingReconciler(late)); err != nil {
		t.Fatal(err)
	}
	for _, name := range members {
		harness.Eventually(t, shortTimeout, "late controller reconciles the existing object in "+name, func() bool {
			return late.Has(key(multicluster.ClusterName(name), ns, "before"))
		})
	}
	for _, name := range members {
		createConfigMap(t, name, ns, "after", nil)
	}
	for _, name := range members {
		harness.Eventually(t, shortTimeout, "late controller reconciles a new object in "+name, func() bool {
			return late.Has(key(multicluster.ClusterName(name), ns, "after"))
		})
	}

	runnable := newEngageRecorder()
	if err := mgr.Add(runnable); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, shortTimeout, "late runnable started", runnable.isStarted)
	for _, name := range members {
		want, err := provider.Get(t.Context(), multicluster.ClusterName(name))
		if err != nil {
			t.Fatal(err)
		}
		harness.Eventually(t, shortTimeout, "late runnable engaged with "+name, func() bool {
			cl, live, _ := runnable.get(name)
			return cl == want && live
		})
	}
	harness.Consistently(t, quiet, "late runnable engaged once with each member", func() bool {
		for _, name := range members {
			if _, _, n := runnable.get(name); n != 1 {
				t.Logf("%s engaged %d times", name, n)
				return false
			}
		}
		return true
	})
}
