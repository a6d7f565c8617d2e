// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespace_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// A multi-cluster controller over the namespace provider reconciles, with requests for namespace "default" of the
// cluster named after the namespace:
//   - an object that existed before its namespace was discovered (the manager starts after it was created), and
//   - objects created right after their namespace, while the controller runs,
//
// and none is dropped as "cluster not found": the reconciler finds each cluster and reads each object through it,
// presented in namespace "default".
func TestControllerReconcilesObjectsAroundDiscovery(t *testing.T) {
	c := hostClient(t)
	pre := harness.UniqueName("ctl-pre")
	harness.CreateNamespaces(t, c, pre)
	harness.CreateConfigMapWithClient(t, c, pre, "before", map[string]string{"owner": pre})

	mgr, _ := newNamespaceManager(t)

	rec := harness.NewRecorder()
	var mu sync.Mutex
	var failures []string
	err := mcbuilder.ControllerManagedBy(mgr).
		Named("ns-around-discovery").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				mu.Lock()
				failures = append(failures, fmt.Sprintf("%s: %v", req, err))
				mu.Unlock()
				return reconcile.Result{}, err
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			rec.Add(fmt.Sprintf("%s|%s|%s|%s|%s", req.ClusterName, req.Namespace, cm.Namespace, cm.Name, cm.Data["owner"]))
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	created := make([]string, 0, 10)
	for range 10 {
		name := harness.UniqueName("ctl-new")
		created = append(created, name)
		harness.CreateNamespaces(t, hostClient(t), name)
		harness.CreateConfigMapWithClient(t, c, name, "after", map[string]string{"owner": name})
	}

	want := make([]string, 0, 1+len(created))
	want = append(want, pre+"|default|default|before|"+pre)
	for _, name := range created {
		want = append(want, name+"|default|default|after|"+name)
	}
	for _, key := range want {
		harness.Eventually(t, harness.ShortWait, "reconcile "+key, func() bool { return rec.Has(key) })
	}
	mu.Lock()
	defer mu.Unlock()
	if len(failures) > 0 {
		t.Fatalf("reconciles did not find their cluster: %v", failures)
	}
}
