// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/envtest/program"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// token is the static token the fleet's API servers accept, and the one the test plugin hands out.
const token = "example-plugin-token-0123456789"

var (
	fleet *mcenvtest.Fleet
	// work holds the token file and the plugin, built by TestMain from the provider's test plugin.
	work string
)

func TestMain(m *testing.M) {
	var err error
	if work, err = os.MkdirTemp("", "cluster-inventory-example-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := 1
	tokens := filepath.Join(work, "tokens.csv")
	if err = os.WriteFile(tokens, []byte(token+`,plugin-user,1001,"system:masters"`+"\n"), 0o600); err == nil {
		var out []byte
		if out, err = exec.Command("go", "build", "-o", filepath.Join(work, "plugin"), "../../providers/cluster-inventory-api/testdata/plugin").CombinedOutput(); err != nil {
			err = fmt.Errorf("building the plugin: %w\n%s", err, out)
		}
	}
	if err == nil {
		code = mcenvtest.RunFleetTests(m, &fleet, mcenvtest.Options{
			Members:               1,
			CRDDirectoryPaths:     []string{"../../providers/cluster-inventory-api/config/crd"},
			ErrorIfCRDPathMissing: true,
			APIServerFlags:        map[string][]string{"token-auth-file": {tokens}},
		})
	} else {
		fmt.Fprintln(os.Stderr, err)
	}
	_ = os.RemoveAll(work)
	os.Exit(code)
}

// The program, written as the reference's example is (the published types registered in client-go's scheme by the
// program, the file read by the published pkg/access), given an access-provider file whose "token" plugin (a real executable) returns a token the member
// accepts, engages a ready ClusterProfile offering that type in status.accessProviders, reconciles a ConfigMap of its
// cluster under "<namespace>/<name>", never shows the token, and exits cleanly on SIGINT.
func TestReachesProfilesWithAccessProviders(t *testing.T) {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(clusterinventoryv1alpha1.AddToScheme(s))
	hub, err := client.New(fleet.Host(), client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	if err := hub.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "inventory"}}); err != nil {
		t.Fatal(err)
	}
	data, err := fleet.Kubeconfig("member-0")
	if err != nil {
		t.Fatal(err)
	}
	kc, err := clientcmd.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	clp := &clusterinventoryv1alpha1.ClusterProfile{
		ObjectMeta: metav1.ObjectMeta{Namespace: "inventory", Name: "east"},
		Spec:       clusterinventoryv1alpha1.ClusterProfileSpec{ClusterManager: clusterinventoryv1alpha1.ClusterManager{Name: "example"}},
	}
	if err := hub.Create(t.Context(), clp); err != nil {
		t.Fatal(err)
	}
	member := kc.Clusters["member-0"]
	clp.Status.AccessProviders = []clusterinventoryv1alpha1.AccessProvider{{
		Name: "token", Cluster: clientcmdv1.Cluster{Server: member.Server, CertificateAuthorityData: member.CertificateAuthorityData}}}
	// ControlPlaneHealthy alone makes a profile ready, as in the reference.
	meta.SetStatusCondition(&clp.Status.Conditions, metav1.Condition{
		Type: clusterinventoryv1alpha1.ClusterConditionControlPlaneHealthy, Status: metav1.ConditionTrue, Reason: "Example"})
	if err := hub.Status().Update(t.Context(), clp); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "inventory-example"}}
	if err := harness.Client(t, fleet, "member-0").Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}

	providerFile := filepath.Join(t.TempDir(), "clusterprofile-provider-file.json")
	file := `{"providers": [{"name": "token", "execConfig": {"apiVersion": "client.authentication.k8s.io/v1beta1",
  "command": "` + filepath.Join(work, "plugin") + `", "env": [{"name": "PLUGIN_TOKEN", "value": "` + token + `"}], "provideClusterInfo": true}}]}`
	if err := os.WriteFile(providerFile, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	hubKubeconfig := filepath.Join(t.TempDir(), "hub.kubeconfig")
	if err := fleet.WriteKubeconfig(hubKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	p := program.Start(t, program.Build(t), []string{"KUBECONFIG=" + hubKubeconfig}, "-clusterprofile-provider-file", providerFile)

	p.WaitFor(t, `"msg":"Engaged cluster"`)
	p.WaitFor(t, `"cluster":"inventory/east"`)
	p.WaitFor(t, `"msg":"Reconciled ConfigMap","cluster":"inventory/east","namespace":"default","name":"inventory-example"`)
	if strings.Contains(p.Output(), token) {
		t.Error("the program's output shows the token")
	}
	p.Interrupt(t)
}
