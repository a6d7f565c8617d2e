// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package patterns

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

func ownerRef(cm *corev1.ConfigMap, controller bool) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: "v1",
		Kind:       "ConfigMap",
		Name:       cm.Name,
		UID:        cm.UID,
		Controller: ptr.To(controller),
	}
}

func recordingReconciler(rec *harness.Recorder) mcreconcile.Func {
	return func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
		rec.Add(key(req.ClusterName, req.Namespace, req.Name))
		return reconcile.Result{}, nil
	}
}

// Owner-based enqueue in each member: For(ConfigMap).Owns(Secret). Every member has a ConfigMap of the same name;
// a Secret controlled by the ConfigMap of one member enqueues that member's ConfigMap, and no other member's. A
// Secret with owner references that are not controller references enqueues nothing, unless the Owns watch has
// MatchEveryOwner, which enqueues every owner, again in the Secret's member only.
func TestOwnsEnqueuesTheOwnerInTheSameMember(t *testing.T) {
	const ns = "pat-owns"
	createNamespace(t, ns, members...)

	provider := memberProvider(t, members...)
	mgr := harness.NewManager(t, fleet.Host(), provider, nil)

	controllerOwner := harness.NewRecorder()
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named("patterns-owns-controller").
		For(&corev1.ConfigMap{}).
		Owns(&corev1.Secret{}).
		WithEventFilter(inNamespace(ns)).
		Complete(recordingReconciler(controllerOwner)); err != nil {
		t.Fatal(err)
	}
	everyOwner := harness.NewRecorder()
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named("patterns-owns-every").
		For(&corev1.ConfigMap{}).
		Owns(&corev1.Secret{}, mcbuilder.MatchEveryOwner).
		WithEventFilter(inNamespace(ns)).
		Complete(recordingReconciler(everyOwner)); err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	parents := map[string]*corev1.ConfigMap{}
	for _, name := range members {
		parents[name] = createConfigMap(t, name, ns, "parent", nil)
	}
	other := createConfigMap(t, "member-2", ns, "other", nil)
	for _, name := range members {
		for _, rec := range []*harness.Recorder{controllerOwner, everyOwner} {
			harness.Eventually(t, 0, "initial reconcile of the parent in "+name, func() bool { return rec.Has(key(multicluster.ClusterName(name), ns, "parent")) })
		}
	}
	harness.Eventually(t, 0, "initial reconcile of other in member-2", func() bool {
		return controllerOwner.Has(key("member-2", ns, "other")) && everyOwner.Has(key("member-2", ns, "other"))
	})
	before := controllerOwner.Keys()

	// A Secret controlled by member-1's parent: created, then changed.
	c1 := harness.Client(t, fleet, "member-1")
	child := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "child", OwnerReferences: []metav1.OwnerReference{ownerRef(parents["member-1"], true)}},
		StringData: map[string]string{"v": "1"},
	}
	if err := c1.Create(t.Context(), child); err != nil {
		t.Fatal(err)
	}
	parent1 := key("member-1", ns, "parent")
	harness.Eventually(t, shortTimeout, "reconcile of member-1's parent after its Secret was created", func() bool {
		return controllerOwner.Count(parent1) > before[parent1]
	})
	afterCreate := controllerOwner.Count(parent1)
	child.StringData = map[string]string{"v": "2"}
	if err := c1.Update(t.Context(), child); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, shortTimeout, "reconcile of member-1's parent after its Secret changed", func() bool {
		return controllerOwner.Count(parent1) > afterCreate
	})

	// A Secret in member-2 owned, but not controlled, by member-2's parent and other.
	shared := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shared", OwnerReferences: []metav1.OwnerReference{
		ownerRef(parents["member-2"], false), ownerRef(other, false),
	}}}
	everyBefore := everyOwner.Keys()
	if err := harness.Client(t, fleet, "member-2").Create(t.Context(), shared); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"parent", "other"} {
		k := key("member-2", ns, name)
		harness.Eventually(t, shortTimeout, "MatchEveryOwner reconcile of "+k, func() bool { return everyOwner.Count(k) > everyBefore[k] })
	}

	// Both Secrets' events have been handled by now. Only member-1's parent was reconciled again by the controller
	// without MatchEveryOwner: not the parents of the other members (same name, other clusters) and not the
	// non-controlling owners in member-2. With MatchEveryOwner, member-2's owners were reconciled in member-2 only.
	harness.Consistently(t, quiet, "no owner reconciled in another member", func() bool {
		for _, name := range []string{"member-0", "member-2"} {
			k := key(multicluster.ClusterName(name), ns, "parent")
			if controllerOwner.Count(k) != before[k] {
				t.Logf("%s reconciled again by the controller-owner watch", k)
				return false
			}
		}
		if k := key("member-2", ns, "other"); controllerOwner.Count(k) != before[k] {
			t.Logf("%s reconciled for a non-controller owner reference", k)
			return false
		}
		for k, n := range everyOwner.Keys() {
			if k != key("member-2", ns, "parent") && k != key("member-2", ns, "other") && k != parent1 && n != everyBefore[k] {
				t.Logf("%s reconciled again by the every-owner watch", k)
				return false
			}
		}
		return true
	})
}
