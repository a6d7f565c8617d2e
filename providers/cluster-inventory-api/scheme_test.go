// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusterinventoryapi_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	clusterinventoryapi "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// SetupWithManager works whether the program registered the published ClusterProfile types in the manager's scheme
// itself, as the reference's example does before mcmanager.New (it used to panic there: "double registration of
// different types"), or not (it registers them). Either way a profile whose only True condition is
// ControlPlaneHealthy (Joined False) is engaged: the default readiness is the reference's.
func TestSchemeRegistration(t *testing.T) {
	for name, register := range map[string]bool{"registered by the program": true, "not registered": false} {
		t.Run(name, func(t *testing.T) {
			ns := harness.NewNamespace(t, fleet, "cip-scheme", hub, "member-0")
			harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0")
			s := harness.NewScheme()
			if register {
				if err := clusterinventoryv1alpha1.AddToScheme(s); err != nil {
					t.Fatal(err)
				}
			}
			p, err := clusterinventoryapi.New(clusterinventoryapi.Options{
				KubeconfigStrategyOption: accessOption(t, ""),
				ClusterOptions:           []cluster.Option{harness.InNamespace(ns)},
				IsReady:                  readyIn(ns),
			})
			if err != nil {
				t.Fatal(err)
			}
			_, rec, _ := harness.StartRecordingManager(t, fleet.Host(), p, func(o *mcmanager.Options) {
				o.Scheme = s
				o.Controller.SkipNameValidation = ptr.To(true)
			}, func(mgr mcmanager.Manager) error { return p.SetupWithManager(mgr) })

			clp := createProfile(t, ns, "healthy", false, accessProviders(accessEntry(t, "token", "member-0")))
			meta.SetStatusCondition(&clp.Status.Conditions, metav1.Condition{
				Type: clusterinventoryv1alpha1.ClusterConditionControlPlaneHealthy, Status: metav1.ConditionTrue, Reason: "Test"})
			if err := hubClient(t).Status().Update(t.Context(), clp); err != nil {
				t.Fatal(err)
			}
			name := multicluster.ClusterName(ns + "/healthy")
			harness.Eventually(t, 0, string(name)+" (ControlPlaneHealthy, not Joined) reconciled", func() bool {
				return rec.Has(harness.Seen(name, "obj", "member-0"))
			})
			if !s.Recognizes(clusterinventoryv1alpha1.ClusterProfileSchemeGroupVersionKind) {
				t.Error("the scheme does not know ClusterProfile")
			}
		})
	}
}

// otherProfile is a Go type of a program's own for the ClusterProfile kind, other than the published one.
type otherProfile struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

func (o *otherProfile) DeepCopyObject() runtime.Object {
	c := *o
	o.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// A scheme that has another Go type registered for the ClusterProfile kind makes SetupWithManager return an error
// that names both types and the fix, where adding the published types would panic.
func TestSchemeWithAnotherType(t *testing.T) {
	s := harness.NewScheme()
	s.AddKnownTypeWithName(clusterinventoryv1alpha1.ClusterProfileSchemeGroupVersionKind, &otherProfile{})
	p, err := clusterinventoryapi.New(clusterinventoryapi.Options{KubeconfigStrategyOption: accessOption(t, "")})
	if err != nil {
		t.Fatal(err)
	}
	mgr := harness.NewManager(t, fleet.Host(), p, func(o *mcmanager.Options) {
		o.Scheme = s
		o.Controller.SkipNameValidation = ptr.To(true)
	})
	err = p.SetupWithManager(mgr)
	if err == nil || !harness.ContainsAll(err.Error(), "otherProfile", "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1", "AddToScheme") {
		t.Errorf("SetupWithManager() = %v, want an error naming both types and AddToScheme", err)
	}
}
