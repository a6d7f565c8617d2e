// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package patterns

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Dynamic membership: a member control plane started while the manager runs and handed to the provider is
// engaged and its objects are reconciled; once removed from the provider, it is no longer known to the manager
// and its changes are no longer reconciled, while the other members still are.
func TestMemberAddedAndRemovedWhileRunning(t *testing.T) {
	const (
		ns      = "pat-dynamic"
		dynamic = "patterns-dynamic"
	)
	createNamespace(t, ns, "member-0")

	provider := memberProvider(t, "member-0")
	mgr := harness.NewManager(t, fleet.Host(), provider, nil)
	rec := harness.NewRecorder()
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named("patterns-dynamic").
		For(&corev1.ConfigMap{}).
		WithEventFilter(inNamespace(ns)).
		Complete(recordingReconciler(rec)); err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)
	createConfigMap(t, "member-0", ns, "steady", nil)
	harness.Eventually(t, 0, "member-0 reconciled", func() bool { return rec.Has(key("member-0", ns, "steady")) })

	cfg, err := fleet.AddMember(t.Context(), dynamic)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := fleet.RemoveMember(dynamic); err != nil {
			t.Errorf("removing member %s: %v", dynamic, err)
		}
	})
	createNamespace(t, ns, dynamic)
	createConfigMap(t, dynamic, ns, "existing", nil)

	cl, err := cluster.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := provider.Add(t.Context(), dynamic, cl); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, shortTimeout, "object that existed before the member was added reconciled", func() bool {
		return rec.Has(key(dynamic, ns, "existing"))
	})
	createConfigMap(t, dynamic, ns, "created", nil)
	harness.Eventually(t, shortTimeout, "object created in the new member reconciled", func() bool {
		return rec.Has(key(dynamic, ns, "created"))
	})

	provider.Remove(dynamic)
	harness.Eventually(t, shortTimeout, "the manager no longer knows the removed member", func() bool {
		_, err := mgr.GetCluster(t.Context(), dynamic)
		return errors.Is(err, multicluster.ErrClusterNotFound)
	})
	before := rec.Keys()
	updateConfigMapData(t, dynamic, ns, "existing", map[string]string{"changed": "true"})
	createConfigMap(t, dynamic, ns, "after-removal", nil)
	createConfigMap(t, "member-0", ns, "after-removal", nil)
	// The controller still runs and receives events: the new object of member-0 is reconciled. The changes made in
	// the removed member at the same time are not.
	harness.Eventually(t, shortTimeout, "member-0 still reconciled", func() bool {
		return rec.Has(key("member-0", ns, "after-removal"))
	})
	harness.Consistently(t, quiet, "removed member not reconciled", func() bool {
		return rec.Count(key(dynamic, ns, "existing")) == before[key(dynamic, ns, "existing")] &&
			!rec.Has(key(dynamic, ns, "after-removal"))
	})
}
