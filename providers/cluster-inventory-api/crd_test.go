// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusterinventoryapi_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	aboutv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/about/v1alpha1"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// The ClusterProfile CRD of config/crd is the published module's, byte for byte (hack/generate.sh copies it from
// the module sigs.k8s.io/cluster-inventory-api the provider depends on).
func TestClusterProfileCRDIsPublished(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/cluster-inventory-api").Output()
	if err != nil {
		t.Fatalf("locating sigs.k8s.io/cluster-inventory-api: %v", err)
	}
	const name = "multicluster.x-k8s.io_clusterprofiles.yaml"
	published, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "config", "crd", "bases", name))
	if err != nil {
		t.Fatal(err)
	}
	ours, err := os.ReadFile(filepath.Join("config", "crd", name))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours, published) {
		t.Errorf("config/crd/%s differs from the published module's; run hack/generate.sh", name)
	}
}

// The CRDs of config/crd install into a real API server (the fleet installs them), and a ClusterProfile written
// with the published JSON field names, as another tool of the ecosystem would, decodes into the Go types with every
// field; the schema rejects a profile without a cluster manager and a ClusterProperty without a value.
func TestCRDs(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "cip-crd", hub)
	c := hubClient(t)

	written := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(`{
  "apiVersion": "multicluster.x-k8s.io/v1alpha1", "kind": "ClusterProfile",
  "metadata": {"namespace": "`+ns+`", "name": "east", "labels": {"x-k8s.io/cluster-manager": "ocm", "multicluster.x-k8s.io/clusterset": "prod"}},
  "spec": {"displayName": "East", "clusterManager": {"name": "ocm"}}
}`), &written.Object); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(t.Context(), written); err != nil {
		t.Fatal(err)
	}
	status := map[string]any{}
	if err := json.Unmarshal([]byte(`{
  "conditions": [{"type": "ControlPlaneHealthy", "status": "True", "reason": "Healthy", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}],
  "version": {"kubernetes": "v1.34.1"},
  "properties": [{"name": "cluster.clusterset.k8s.io", "value": "east.example.com", "lastObservedTime": "2026-01-01T00:00:00Z"}],
  "credentialProviders": [{"name": "token", "cluster": {"server": "https://east:6443", "tls-server-name": "east.internal",
    "extensions": [{"name": "client.authentication.k8s.io/exec", "extension": {"audience": "fleet"}}]}}]
}`), &status); err != nil {
		t.Fatal(err)
	}
	written.Object["status"] = status
	if err := c.Status().Update(t.Context(), written); err != nil {
		t.Fatal(err)
	}

	clp := &clusterinventoryv1alpha1.ClusterProfile{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "east"}, clp); err != nil {
		t.Fatal(err)
	}
	if clp.Spec.DisplayName != "East" || clp.Spec.ClusterManager.Name != "ocm" || clp.Labels[clusterinventoryv1alpha1.LabelClusterManagerKey] != "ocm" ||
		clp.Labels[clusterinventoryv1alpha1.LabelClusterSetKey] != "prod" {
		t.Errorf("spec or labels lost: %+v %v", clp.Spec, clp.Labels)
	}
	st := clp.Status
	if len(st.Conditions) != 1 || st.Conditions[0].Type != clusterinventoryv1alpha1.ClusterConditionControlPlaneHealthy || st.Version.Kubernetes != "v1.34.1" ||
		len(st.Properties) != 1 || st.Properties[0].Name != aboutv1alpha1.ClusterIDPropertyName || st.Properties[0].LastObservedTime.IsZero() ||
		len(st.CredentialProviders) != 1 || st.CredentialProviders[0].Name != "token" {
		t.Fatalf("status lost fields: %+v", st)
	}
	if cl := st.CredentialProviders[0].Cluster; cl.Server != "https://east:6443" || cl.TLSServerName != "east.internal" || len(cl.Extensions) != 1 {
		t.Errorf("the credential provider's cluster lost fields: %+v", cl)
	}

	noManager := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"displayName": "x"}}}
	noManager.SetGroupVersionKind(clusterinventoryv1alpha1.ClusterProfileSchemeGroupVersionKind)
	noManager.SetNamespace(ns)
	noManager.SetName("nomanager")
	if err := c.Create(t.Context(), noManager); !apierrors.IsInvalid(err) {
		t.Errorf("a profile without a cluster manager: got %v, want invalid", err)
	}

	// ClusterProperty is cluster-scoped and needs a value.
	prop := &aboutv1alpha1.ClusterProperty{
		ObjectMeta: metav1.ObjectMeta{Name: aboutv1alpha1.ClusterSetPropertyName},
		Spec:       aboutv1alpha1.ClusterPropertySpec{Value: "prod"},
	}
	if err := c.Create(t.Context(), prop); client.IgnoreAlreadyExists(err) != nil {
		t.Fatal(err)
	}
	empty := &aboutv1alpha1.ClusterProperty{ObjectMeta: metav1.ObjectMeta{Name: "empty.example.com"}}
	if err := c.Create(t.Context(), empty); !apierrors.IsInvalid(err) {
		t.Errorf("a property without a value: got %v, want invalid", err)
	}
}
