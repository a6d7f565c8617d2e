// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package uniform

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	clustersprovider "sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// A uniform reconciler: the same code reconciles a ConfigMap in each of three members, reading it from the
// member it lives in.
func TestUniformReconcilerOverThreeMembers(t *testing.T) {
	provider := clustersprovider.New()
	for _, name := range fleet.Members() {
		if err := provider.Add(t.Context(), multicluster.ClusterName(name), harness.NewCluster(t, fleet, name)); err != nil {
			t.Fatal(err)
		}
	}
	mgr := harness.NewManager(t, fleet.Host(), provider, nil)
	rec := harness.NewRecorder()
	err := mcbuilder.ControllerManagedBy(mgr).
		Named("uniform").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return reconcile.Result{}, err
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			rec.Add(req.ClusterName.String() + "/" + cm.Namespace + "/" + cm.Name + "=" + cm.Data["owner"])
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	for _, name := range fleet.Members() {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "uniform", Namespace: "default"}, Data: map[string]string{"owner": name}}
		if err := harness.Client(t, fleet, name).Create(t.Context(), cm); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range fleet.Members() {
		harness.Eventually(t, 0, "reconcile in "+name, func() bool { return rec.Has(name + "/default/uniform=" + name) })
	}
}
