// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file_test

import (
	"path/filepath"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/file"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// The provider needs no right on the host: it reads files only. A manager that authenticates to the host as a
// ServiceAccount with no role at all runs it, and its cluster is engaged and reconciled.
func TestNoRightsOnTheHost(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "file-rbac", "member-0")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	cfg := harness.ServiceAccountWithoutRights(t, fleet, ns, "fleet-controller")

	path := filepath.Join(t.TempDir(), "fleet.kubeconfig")
	writeFile(t, path, kubeconfig(t, map[string]string{"ctx": "member-0"}))
	p, err := file.New(file.Options{KubeconfigFiles: []string{path}, ClusterOptions: []cluster.Option{harness.InNamespace(ns)}})
	if err != nil {
		t.Fatal(err)
	}
	_, rec, _ := harness.StartRecordingManager(t, cfg, p, nil)
	name := multicluster.ClusterName(path + "+ctx")
	harness.Eventually(t, 0, string(name)+" reconciled", func() bool { return rec.Has(harness.Seen(name, "obj", "member-0")) })
}
