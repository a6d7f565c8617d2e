// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/envtest/program"
	capi "sigs.k8s.io/multicluster-runtime/providers/cluster-api"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	crd, err := clusterCRD()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 1, CRDDirectoryPaths: []string{crd}, ErrorIfCRDPathMissing: true})
}

// clusterCRD returns the path of Cluster API's Cluster CRD, from the Cluster API module of the release of the API
// types the provider requires; that module (unlike the API types module) ships the CRDs, and "go mod download"
// fetches it, from the module cache when it is there.
func clusterCRD() (string, error) {
	version, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "sigs.k8s.io/cluster-api/api").Output()
	if err != nil {
		return "", fmt.Errorf("finding the version of the Cluster API types: %w", err)
	}
	module := "sigs.k8s.io/cluster-api@" + strings.TrimSpace(string(version))
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		return "", fmt.Errorf("downloading %s for its CRDs: %w", module, err)
	}
	var downloaded struct{ Dir, Error string }
	if err := json.Unmarshal(out, &downloaded); err != nil || downloaded.Error != "" {
		return "", fmt.Errorf("downloading %s for its CRDs: %w %s", module, err, downloaded.Error)
	}
	return filepath.Join(downloaded.Dir, "core", "config", "crd", "bases", "cluster.x-k8s.io_clusters.yaml"), nil
}

// The program, run against a management cluster with one provisioned Cluster whose kubeconfig Secret reaches a
// fleet member, reconciles a ConfigMap of that workload cluster under the name "<namespace>/<name>", and exits
// cleanly on SIGINT.
func TestReconcilesProvisionedWorkloadClusters(t *testing.T) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(clusterv1.AddToScheme(scheme))
	host, err := client.New(fleet.Host(), client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "workloads"}}); err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := fleet.Kubeconfig("member-0")
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "workloads", Name: "east" + capi.KubeconfigSecretSuffix},
		Data:       map[string][]byte{capi.KubeconfigSecretKey: kubeconfig},
	}
	if err := host.Create(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	ccl := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: "workloads", Name: "east"}, Spec: clusterv1.ClusterSpec{Paused: ptr.To(true)}}
	if err := host.Create(t.Context(), ccl); err != nil {
		t.Fatal(err)
	}
	ccl.Status.Initialization.ControlPlaneInitialized = ptr.To(true)
	if err := host.Status().Update(t.Context(), ccl); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "capi-example"}}
	if err := harness.Client(t, fleet, "member-0").Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}

	hostKubeconfig := filepath.Join(t.TempDir(), "host.kubeconfig")
	if err := fleet.WriteKubeconfig(hostKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	p := program.Start(t, program.Build(t), []string{"KUBECONFIG=" + hostKubeconfig})

	want := `ConfigMap default/capi-example in cluster "workloads/east"`
	harness.Eventually(t, 0, want, func() bool { return strings.Contains(p.Output(), want) })
	p.Interrupt(t)
}
