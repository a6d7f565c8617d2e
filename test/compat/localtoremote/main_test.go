// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"maps"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/envtest/program"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 2})
}

const secretsNamespace = "fleet"

// The program copies the local ConfigMaps labelled for sync, and only those, into every cluster of the fleet,
// creating their namespaces; it follows changes of the local ConfigMaps, gives a cluster that joins every copy, puts
// back a copy changed or deleted in a cluster of the fleet, and exits cleanly on SIGINT.
func TestSyncsLabelledLocalConfigMapsToEveryCluster(t *testing.T) {
	host := harness.Client(t, fleet, mcenvtest.HostName)
	for _, ns := range []string{secretsNamespace, "team-a"} {
		if err := host.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	shared := createConfigMap(t, host, "team-a", "shared", true, map[string]string{"color": "blue"})
	createConfigMap(t, host, "team-a", "private", false, map[string]string{"secret": "no"})
	createConfigMap(t, host, "default", "defaults", true, map[string]string{"replicas": "1"})

	hostKubeconfig := filepath.Join(t.TempDir(), "host")
	if err := fleet.WriteKubeconfig(hostKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	p := program.Start(t, program.Build(t), []string{"KUBECONFIG=" + hostKubeconfig}, "-namespace", secretsNamespace)
	p.WaitFor(t, "Starting manager")

	east := harness.Client(t, fleet, "member-0")
	createSecret(t, "east", "member-0")
	waitForCopy(t, east, "team-a", "shared", map[string]string{"color": "blue"})
	waitForCopy(t, east, "default", "defaults", map[string]string{"replicas": "1"})

	// Changes and new ConfigMaps of the local cluster reach the fleet.
	shared.Data["color"] = "green"
	if err := host.Update(t.Context(), shared); err != nil {
		t.Fatal(err)
	}
	waitForCopy(t, east, "team-a", "shared", map[string]string{"color": "green"})
	createConfigMap(t, host, "team-a", "late", true, map[string]string{"added": "later"})
	waitForCopy(t, east, "team-a", "late", map[string]string{"added": "later"})

	// A cluster that joins gets every copy, in namespaces it did not have.
	west := harness.Client(t, fleet, "member-1")
	createSecret(t, "west", "member-1")
	waitForCopy(t, west, "team-a", "shared", map[string]string{"color": "green"})
	waitForCopy(t, west, "team-a", "late", map[string]string{"added": "later"})
	waitForCopy(t, west, "default", "defaults", map[string]string{"replicas": "1"})

	// Copies changed or deleted in the fleet are put back.
	drifted := &corev1.ConfigMap{}
	if err := east.Get(t.Context(), client.ObjectKey{Namespace: "team-a", Name: "shared"}, drifted); err != nil {
		t.Fatal(err)
	}
	drifted.Data = map[string]string{"color": "red"}
	if err := east.Update(t.Context(), drifted); err != nil {
		t.Fatal(err)
	}
	if err := west.Delete(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "late"}}); err != nil {
		t.Fatal(err)
	}
	waitForCopy(t, east, "team-a", "shared", map[string]string{"color": "green"})
	waitForCopy(t, west, "team-a", "late", map[string]string{"added": "later"})

	// Reconciles still running at SIGINT may fail with the cancelled context: only errors before it count.
	if errs := p.Lines("Reconciler error"); len(errs) > 0 {
		t.Errorf("reconciles failed:\n%v", errs)
	}
	p.Interrupt(t)

	// Unlabelled local ConfigMaps stay local.
	for name, c := range map[string]client.Client{"east": east, "west": west} {
		err := c.Get(t.Context(), client.ObjectKey{Namespace: "team-a", Name: "private"}, &corev1.ConfigMap{})
		if !apierrors.IsNotFound(err) {
			t.Errorf("the unlabelled ConfigMap in cluster %s: got %v, want not found", name, err)
		}
	}
}

func createConfigMap(t *testing.T, c client.Client, namespace, name string, sync bool, data map[string]string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Data: data}
	if sync {
		cm.Labels = map[string]string{syncLabel: syncEnabled}
	}
	if err := c.Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	return cm
}

// waitForCopy waits until c holds the copy of a local ConfigMap with data.
func waitForCopy(t *testing.T, c client.Client, namespace, name string, data map[string]string) {
	t.Helper()
	harness.Eventually(t, 0, fmt.Sprintf("the copy %s/%s with data %v", namespace, name, data), func() bool {
		cm := &corev1.ConfigMap{}
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: namespace, Name: name}, cm); err != nil {
			return false
		}
		return cm.Labels[copyLabel] == "local" && maps.Equal(cm.Data, data)
	})
}

// createSecret stores the kubeconfig of member in the Secret name of the host, with the provider's default label
// and key.
func createSecret(t *testing.T, name, member string) {
	t.Helper()
	data, err := fleet.Kubeconfig(member)
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: secretsNamespace, Name: name, Labels: map[string]string{kubeconfig.DefaultKubeconfigSecretLabel: "true"}},
		Data:       map[string][]byte{kubeconfig.DefaultKubeconfigSecretKey: data},
	}
	if err := harness.Client(t, fleet, mcenvtest.HostName).Create(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
}
