// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusterinventoryapi_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	clusterinventoryapi "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api"
	aboutv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/about/v1alpha1"
)

// IsReady (the default, the reference's) needs ControlPlaneHealthy True and no deletion under way; IsReadyAndJoined
// needs Joined True as well.
func TestIsReady(t *testing.T) {
	cond := func(typ string, status metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status}
	}
	healthy := clusterinventoryv1alpha1.ClusterConditionControlPlaneHealthy
	joined := clusterinventoryapi.ClusterConditionJoined
	now := metav1.Now()
	for name, tc := range map[string]struct {
		conds          []metav1.Condition
		deleting       bool
		ready, andJoin bool
	}{
		"both true":          {[]metav1.Condition{cond(healthy, metav1.ConditionTrue), cond(joined, metav1.ConditionTrue)}, false, true, true},
		"no conditions":      {nil, false, false, false},
		"only healthy":       {[]metav1.Condition{cond(healthy, metav1.ConditionTrue)}, false, true, false},
		"only joined":        {[]metav1.Condition{cond(joined, metav1.ConditionTrue)}, false, false, false},
		"unhealthy":          {[]metav1.Condition{cond(healthy, metav1.ConditionFalse), cond(joined, metav1.ConditionTrue)}, false, false, false},
		"not joined":         {[]metav1.Condition{cond(healthy, metav1.ConditionTrue), cond(joined, metav1.ConditionFalse)}, false, true, false},
		"health unknown":     {[]metav1.Condition{cond(healthy, metav1.ConditionUnknown), cond(joined, metav1.ConditionTrue)}, false, false, false},
		"both true, deleted": {[]metav1.Condition{cond(healthy, metav1.ConditionTrue), cond(joined, metav1.ConditionTrue)}, true, false, false},
	} {
		clp := &clusterinventoryv1alpha1.ClusterProfile{}
		clp.Status.Conditions = tc.conds
		if tc.deleting {
			clp.DeletionTimestamp = &now
		}
		if got := clusterinventoryapi.IsReady(t.Context(), clp); got != tc.ready {
			t.Errorf("%s: IsReady() = %v, want %v", name, got, tc.ready)
		}
		if got := clusterinventoryapi.IsReadyAndJoined(t.Context(), clp); got != tc.andJoin {
			t.Errorf("%s: IsReadyAndJoined() = %v, want %v", name, got, tc.andJoin)
		}
	}
}

// ProfileName is "<namespace>/<name>"; ClusterIDName prefers cluster.clusterset.k8s.io, then id.k8s.io, then falls
// back to ProfileName.
func TestNames(t *testing.T) {
	prop := func(name, value string) clusterinventoryv1alpha1.Property {
		return clusterinventoryv1alpha1.Property{Name: name, Value: value}
	}
	for name, tc := range map[string]struct {
		props []clusterinventoryv1alpha1.Property
		want  multicluster.ClusterName
	}{
		"no properties":    {nil, "fleet/east"},
		"other properties": {[]clusterinventoryv1alpha1.Property{prop(aboutv1alpha1.ClusterSetPropertyName, "set")}, "fleet/east"},
		"legacy ID":        {[]clusterinventoryv1alpha1.Property{prop(aboutv1alpha1.LegacyClusterIDPropertyName, "old-id")}, "old-id"},
		"both IDs": {[]clusterinventoryv1alpha1.Property{
			prop(aboutv1alpha1.LegacyClusterIDPropertyName, "old-id"), prop(aboutv1alpha1.ClusterIDPropertyName, "new-id"),
		}, "new-id"},
	} {
		clp := &clusterinventoryv1alpha1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "east"}}
		clp.Status.Properties = tc.props
		if got := clusterinventoryapi.ClusterIDName(clp); got != tc.want {
			t.Errorf("%s: ClusterIDName() = %q, want %q", name, got, tc.want)
		}
		if got := clusterinventoryapi.ProfileName(clp); got != "fleet/east" {
			t.Errorf("%s: ProfileName() = %q", name, got)
		}
	}
}
