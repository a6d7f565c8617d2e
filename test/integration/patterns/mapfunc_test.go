// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package patterns

import (
	"context"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

const (
	patternLabel     = "patterns.test/handler"
	targetLabel      = "patterns.test/target"
	targetClusterAnn = "patterns.test/target-cluster"
)

// handlerIs keeps the events of Secrets meant for one of the handlers under test.
func handlerIs(name string) mcbuilder.Predicates {
	return mcbuilder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
		return o.GetLabels()[patternLabel] == name
	}))
}

// Map-func enqueue, within the event's cluster and across clusters. One controller watches Secrets with four
// handlers, each for the Secrets labelled for it, and records every request it reconciles:
//   - EnqueueRequestsFromMapFunc: the request lands in the cluster of the event;
//   - TypedEnqueueRequestsFromMapFunc: the request lands in the cluster of the event even though the map func set
//     another cluster;
//   - TypedEnqueueRequestsFromClusterMapFunc: the map func learns the event's cluster and sends the request to
//     another member, or to the host with the empty name;
//   - TypedEnqueueRequestsFromMapFuncWithClusterPreservation: the cluster set by the map func is kept, another
//     member or the host.
//
// Exactly the expected requests are reconciled, nothing in any other cluster.
func TestMapFuncEnqueueWithinAndAcrossClusters(t *testing.T) {
	const ns = "pat-mapfunc"
	createNamespace(t, ns, members...)

	provider := memberProvider(t, members...)
	mgr := harness.NewManager(t, fleet.Host(), provider, nil)

	target := func(obj client.Object) types.NamespacedName {
		return types.NamespacedName{Namespace: ns, Name: obj.GetLabels()[targetLabel]}
	}
	preserving := mchandler.TypedEnqueueRequestsFromMapFuncWithClusterPreservation(
		func(_ context.Context, obj client.Object) []mcreconcile.Request {
			return []mcreconcile.Request{{Request: reconcile.Request{NamespacedName: target(obj)}, ClusterName: multicluster.ClusterName(obj.GetAnnotations()[targetClusterAnn])}}
		})

	rec := harness.NewRecorder()
	err := mcbuilder.ControllerManagedBy(mgr).
		Named("patterns-mapfunc").
		Watches(&corev1.Secret{},
			mchandler.EnqueueRequestsFromMapFunc(func(_ context.Context, obj client.Object) []reconcile.Request {
				return []reconcile.Request{{NamespacedName: target(obj)}}
			}),
			handlerIs("local")).
		Watches(&corev1.Secret{},
			mchandler.TypedEnqueueRequestsFromMapFunc(func(_ context.Context, obj client.Object) []mcreconcile.Request {
				return []mcreconcile.Request{{Request: reconcile.Request{NamespacedName: target(obj)}, ClusterName: "not-the-event-cluster"}}
			}),
			handlerIs("typed-local")).
		Watches(&corev1.Secret{},
			mchandler.TypedEnqueueRequestsFromClusterMapFunc(func(_ context.Context, clusterName multicluster.ClusterName, obj client.Object) []mcreconcile.Request {
				return []mcreconcile.Request{{
					Request:     reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: "from-" + clusterName.String()}},
					ClusterName: multicluster.ClusterName(obj.GetAnnotations()[targetClusterAnn]),
				}}
			}),
			handlerIs("cluster-map")).
		Watches(&corev1.Secret{},
			func(multicluster.ClusterName, cluster.Cluster) handler.TypedEventHandler[client.Object, mcreconcile.Request] {
				return preserving
			},
			handlerIs("preserve")).
		WithEventFilter(inNamespace(ns)).
		Complete(recordingReconciler(rec))
	if err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	secret := func(member, name, handlerName, targetName string, targetCluster *string) {
		t.Helper()
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
			Namespace: ns,
			Name:      name,
			Labels:    map[string]string{patternLabel: handlerName, targetLabel: targetName},
		}}
		if targetCluster != nil {
			s.Annotations = map[string]string{targetClusterAnn: *targetCluster}
		}
		if err := harness.Client(t, fleet, member).Create(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	str := func(s string) *string { return &s }

	secret("member-2", "local", "local", "local-target", nil)
	secret("member-0", "typed-local", "typed-local", "typed-target", nil)
	secret("member-0", "to-member-1", "cluster-map", "", str("member-1"))
	secret("member-1", "to-host", "cluster-map", "", str(""))
	secret("member-0", "preserve-to-member-2", "preserve", "preserved", str("member-2"))
	secret("member-2", "preserve-to-host", "preserve", "preserved-host", str(""))

	expected := []string{
		key("member-2", ns, "local-target"),  // within the event's cluster
		key("member-0", ns, "typed-target"),  // stamped with the event's cluster
		key("member-1", ns, "from-member-0"), // member-0 -> member-1, the map func saw member-0
		key("", ns, "from-member-1"),         // member-1 -> host
		key("member-2", ns, "preserved"),     // member-0 -> member-2, cluster preserved
		key("", ns, "preserved-host"),        // member-2 -> host, cluster preserved
	}
	for _, k := range expected {
		harness.Eventually(t, shortTimeout, "reconcile of "+k, func() bool { return rec.Has(k) })
	}
	want := map[string]bool{}
	for _, k := range expected {
		want[k] = true
	}
	harness.Consistently(t, quiet, "only the expected requests", func() bool {
		var unexpected []string
		for k := range rec.Keys() {
			if !want[k] {
				unexpected = append(unexpected, k)
			}
		}
		if len(unexpected) > 0 {
			sort.Strings(unexpected)
			t.Logf("unexpected requests: %v", unexpected)
			return false
		}
		return true
	})
}
