// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package fairqueue

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// Once a burst has drained, the order lets go of the room it took, and keeps serving fairly afterwards.
func TestFairOrderReleasesTheRoomOfADrainedBurst(t *testing.T) {
	o := newFairOrder[mcreconcile.Request]()
	req := func(cluster string, i int) mcreconcile.Request {
		return mcreconcile.Request{
			Request:     reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: fmt.Sprint(i)}},
			ClusterName: multicluster.ClusterName(cluster),
		}
	}
	for i := range burstEntries {
		o.Push(req(fmt.Sprintf("c%d", i%3), i))
	}
	bigEntries := o.entries
	for range burstEntries {
		o.Pop()
	}
	if len(o.entries) != 0 || o.pending != 0 || len(o.clusters) != 0 || len(o.ring) != 0 {
		t.Fatalf("drained order holds %d entries, %d pending, %d clusters, %d in the round", len(o.entries), o.pending, len(o.clusters), len(o.ring))
	}
	if o.peakEntries != 0 {
		t.Errorf("peak after the burst = %d; want the map allocated anew", o.peakEntries)
	}
	o.Push(req("c0", 1))
	if _, stale := bigEntries[req("c0", 1)]; stale {
		t.Error("the order still writes to the map of the burst")
	}

	o.Push(req("c0", 2))
	o.Push(req("c1", 1))
	got := []multicluster.ClusterName{o.Pop().ClusterName, o.Pop().ClusterName, o.Pop().ClusterName}
	if got[0] == got[1] {
		t.Errorf("served %v after the burst, want the clusters in turn", got)
	}
}
