// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package capi_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	capi "sigs.k8s.io/multicluster-runtime/providers/cluster-api"
)

// unstructuredWithStatus returns a Cluster of the given API version as an unstructured object with status.
func unstructuredWithStatus(version string, status map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"status": status}}
	u.SetAPIVersion(clusterv1.GroupVersion.Group + "/" + version)
	u.SetKind("Cluster")
	return u
}

// DefaultIsReady reads Cluster API's v1beta2 status from typed Clusters, the same fields (and v1beta1's) from
// unstructured objects, and finds nothing ready in objects without them.
func TestDefaultIsReady(t *testing.T) {
	for _, tc := range []struct {
		name string
		obj  client.Object
		want bool
	}{
		{"new Cluster", &clusterv1.Cluster{}, false},
		{"control plane initialized", &clusterv1.Cluster{Status: clusterv1.ClusterStatus{
			Initialization: clusterv1.ClusterInitializationStatus{ControlPlaneInitialized: ptr.To(true)},
		}}, true},
		{"control plane not initialized", &clusterv1.Cluster{Status: clusterv1.ClusterStatus{
			Initialization: clusterv1.ClusterInitializationStatus{ControlPlaneInitialized: ptr.To(false)},
		}}, false},
		{"control plane available", &clusterv1.Cluster{Status: clusterv1.ClusterStatus{Conditions: []metav1.Condition{
			{Type: clusterv1.ClusterControlPlaneAvailableCondition, Status: metav1.ConditionTrue},
		}}}, true},
		{"control plane unavailable", &clusterv1.Cluster{Status: clusterv1.ClusterStatus{Conditions: []metav1.Condition{
			{Type: clusterv1.ClusterControlPlaneAvailableCondition, Status: metav1.ConditionFalse},
		}}}, false},
		{"phase Provisioned", &clusterv1.Cluster{Status: clusterv1.ClusterStatus{Phase: string(clusterv1.ClusterPhaseProvisioned)}}, true},
		{"phase Provisioning", &clusterv1.Cluster{Status: clusterv1.ClusterStatus{Phase: string(clusterv1.ClusterPhaseProvisioning)}}, false},
		{"unstructured v1beta2, initialized", unstructuredWithStatus("v1beta2", map[string]any{
			"initialization": map[string]any{"controlPlaneInitialized": true},
		}), true},
		{"unstructured v1beta2, available", unstructuredWithStatus("v1beta2", map[string]any{
			"conditions": []any{map[string]any{"type": "ControlPlaneAvailable", "status": "True"}},
		}), true},
		{"unstructured v1beta1, control plane ready", unstructuredWithStatus("v1beta1", map[string]any{"controlPlaneReady": true}), true},
		{"unstructured, phase Provisioned", unstructuredWithStatus("v1beta1", map[string]any{"phase": "Provisioned"}), true},
		{"unstructured, pending", unstructuredWithStatus("v1beta1", map[string]any{"phase": "Pending", "controlPlaneReady": false}), false},
		{"another kind", &corev1.ConfigMap{Data: map[string]string{"phase": "Provisioned"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := capi.DefaultIsReady(t.Context(), tc.obj); got != tc.want {
				t.Errorf("DefaultIsReady() = %v, want %v", got, tc.want)
			}
		})
	}
}
