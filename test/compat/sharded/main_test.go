// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"path/filepath"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/envtest/program"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{})
}

// Two replicas of the program split the namespaces of one real cluster: every namespace's fence is the Lease
// mcr-shard-<namespace> held by one of them, both hold some, and each namespace's ConfigMap is found by its holder
// only. Both exit cleanly on SIGINT.
func TestReplicasSplitTheNamespaces(t *testing.T) {
	c := harness.Client(t, fleet, mcenvtest.HostName)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := fleet.WriteKubeconfig(kubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	bin := program.Build(t)
	replicas := map[string]*program.Process{}
	for _, id := range []string{"replica-a", "replica-b"} {
		replicas[id] = program.Start(t, bin, []string{"KUBECONFIG=" + kubeconfig}, "-peer-id", id)
	}

	holder := func(ns string) string {
		lease := &coordinationv1.Lease{}
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: "kube-system", Name: "mcr-shard-" + ns}, lease); err != nil {
			return ""
		}
		return ptr.Deref(lease.Spec.HolderIdentity, "")
	}
	// Both replicas have joined once the system namespaces are split between them.
	harness.Eventually(t, 0, "both replicas holding namespaces", func() bool {
		held := map[string]bool{}
		for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
			held[holder(ns)] = true
		}
		return held["replica-a"] && held["replica-b"]
	})

	teams := make([]string, 0, 12)
	for i := range 12 {
		team := fmt.Sprintf("team-%d", i)
		teams = append(teams, team)
		if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: team}}); err != nil {
			t.Fatal(err)
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: team, Name: "app-config"}}
		if err := c.Create(t.Context(), cm); err != nil {
			t.Fatal(err)
		}
	}

	owned := map[string]int{}
	for _, team := range teams {
		var owner string
		harness.Eventually(t, 0, team+" held by a replica", func() bool {
			owner = holder(team)
			return owner != ""
		})
		owned[owner]++
		found := []string{"ConfigMap found", `"cluster": "` + team + `"`, `"name": "app-config"`}
		replicas[owner].WaitFor(t, found...)
		for id, p := range replicas {
			if id != owner && len(p.Lines(found...)) > 0 {
				t.Errorf("%s found %s's ConfigMap, which %s holds", id, team, owner)
			}
		}
	}
	if len(owned) != 2 {
		t.Errorf("namespaces held per replica: %v, want both replicas to hold some", owned)
	}
	for id, p := range replicas {
		if errs := p.Lines("Reconciler error"); len(errs) > 0 {
			t.Errorf("%s: reconciles failed:\n%v", id, errs)
		}
		p.Interrupt(t)
	}
}
