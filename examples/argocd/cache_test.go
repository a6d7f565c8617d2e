// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package argocd

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The host cache keeps only labelled Secrets of the namespace, and stores them without managedFields and the
// last-applied annotation, keeping the data and the other annotations the provider may read.
func TestSecretCache(t *testing.T) {
	c := SecretCache("argocd")
	if _, ok := c.Namespaces["argocd"]; !ok || len(c.Namespaces) != 1 {
		t.Errorf("namespaces %v, want only argocd", c.Namespaces)
	}
	if !c.Label.Matches(labels.Set{SecretTypeLabel: SecretTypeCluster}) || c.Label.Matches(labels.Set{SecretTypeLabel: "repository"}) {
		t.Errorf("selector %v does not select exactly the cluster Secrets", c.Label)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:          "east",
			Annotations:   map[string]string{LastAppliedAnnotation: `{"data":{"config":"..."}}`, "team": "a"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}},
		},
		Data: map[string][]byte{"server": []byte("https://east"), "config": []byte("{}")},
	}
	out, err := c.Transform(secret)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*corev1.Secret)
	if got.ManagedFields != nil || got.Annotations[LastAppliedAnnotation] != "" {
		t.Errorf("managedFields %v and last-applied annotation %q kept", got.ManagedFields, got.Annotations[LastAppliedAnnotation])
	}
	if got.Annotations["team"] != "a" || string(got.Data["server"]) != "https://east" || len(got.Data) != 2 {
		t.Errorf("annotations %v, data %v: the rest must be kept", got.Annotations, got.Data)
	}
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}}
	if out, err := c.Transform(other); err != nil || len(out.(*corev1.ConfigMap).ManagedFields) != 1 {
		t.Errorf("another type is changed (%v, %v)", out, err)
	}
}
