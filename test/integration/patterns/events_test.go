// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package patterns

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Events recorded through controller-runtime's events API (GetEventRecorder, events.k8s.io/v1) land in the cluster
// of the request: through the cluster from GetCluster and through the manager from GetManager. No Event about the
// ConfigMaps reaches the host or another member.
func TestEventsLandInTheRequestsCluster(t *testing.T) {
	const ns = "pat-events"
	createNamespace(t, ns, append([]string{host}, members...)...)

	provider := memberProvider(t, members...)
	mgr := harness.NewManager(t, fleet.Host(), provider, nil)
	err := mcbuilder.ControllerManagedBy(mgr).
		Named("patterns-events").
		For(&corev1.ConfigMap{}).
		WithEventFilter(inNamespace(ns)).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return reconcile.Result{}, err
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			cl.GetEventRecorder("patterns-events").Eventf(cm, nil, corev1.EventTypeNormal, "ViaCluster", "Reconcile", "seen in %s", req.ClusterName)
			scoped, err := mgr.GetManager(ctx, req.ClusterName)
			if err != nil {
				return reconcile.Result{}, err
			}
			scoped.GetEventRecorder("patterns-events").Eventf(cm, nil, corev1.EventTypeNormal, "ViaManager", "Reconcile", "seen in %s", req.ClusterName)
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	for _, member := range members {
		createConfigMap(t, member, ns, "subject-"+member, nil)
	}

	reasons := func(controlPlane string) map[string]string {
		events := &eventsv1.EventList{}
		if err := harness.Client(t, fleet, controlPlane).List(t.Context(), events, client.InNamespace(ns)); err != nil {
			t.Fatalf("listing events on %s: %v", controlPlane, err)
		}
		got := map[string]string{}
		for _, e := range events.Items {
			got[e.Reason] = e.Regarding.Name
		}
		return got
	}
	for _, member := range members {
		harness.Eventually(t, shortTimeout, "both events in "+member, func() bool {
			got := reasons(member)
			return got["ViaCluster"] == "subject-"+member && got["ViaManager"] == "subject-"+member
		})
		if got := reasons(member); len(got) != 2 {
			t.Errorf("events in %s: %v, want only the two about its own ConfigMap", member, got)
		}
	}
	if got := reasons(host); len(got) != 0 {
		t.Errorf("events on the host: %v, want none", got)
	}
}
