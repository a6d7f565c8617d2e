// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package capi_test

import (
	"encoding/base64"
	"errors"
	"slices"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	capi "sigs.k8s.io/multicluster-runtime/providers/cluster-api"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// The life of a workload cluster: a Cluster that is not provisioned is left alone; once provisioned it is engaged
// as "<namespace>/<name>" and reconciled; a new kubeconfig in its Secret (now reaching another API server) replaces
// it; a deletion timestamp (the Cluster is being deleted, held by a finalizer) disengages it; and a Cluster deleted
// outright is disengaged too.
func TestClusterLifecycle(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "capi-life", mcHost, "member-0", "member-1")
	harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0", "member-1")
	p, mgr, rec, _ := start(t, capi.Options{ClusterOptions: []cluster.Option{harness.InNamespace(ns)}})
	name := multicluster.ClusterName(ns + "/wl")

	ccl := createCluster(t, ns, "wl", false, "test.multicluster-runtime.sigs.k8s.io/hold")
	setKubeconfig(t, ns, "wl", "member-0")
	harness.Consistently(t, 2*time.Second, "an unprovisioned Cluster is not engaged", func() bool {
		if names := namesIn(p, ns); len(names) > 0 {
			t.Logf("engaged: %v", names)
			return false
		}
		return true
	})

	setProvisioned(t, ccl)
	harness.Eventually(t, 0, name.String()+" reconciled on member-0", func() bool { return rec.Has(harness.Seen(name, "obj", "member-0")) })

	setKubeconfig(t, ns, "wl", "member-1")
	harness.Eventually(t, 0, name.String()+" replaced by a cluster on member-1", func() bool { return rec.Has(harness.Seen(name, "obj", "member-1")) })

	otherCluster := createCluster(t, ns, "other", true)
	setKubeconfig(t, ns, "other", "member-0")
	other := multicluster.ClusterName(ns + "/other")
	harness.Eventually(t, 0, "other reconciled", func() bool { return rec.Has(harness.Seen(other, "obj", "member-0")) })

	c := hostClient(t)
	if err := c.Delete(t.Context(), ccl); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, name.String()+" disengaged while being deleted", func() bool {
		_, err := mgr.GetCluster(t.Context(), name)
		return errors.Is(err, multicluster.ErrClusterNotFound)
	})
	if err := c.Delete(t.Context(), otherCluster); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "other disengaged once deleted", func() bool { return len(namesIn(p, ns)) == 0 })

	// Release the held Cluster.
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(ccl), ccl); err != nil {
		t.Fatal(err)
	}
	ccl.Finalizers = nil
	if err := c.Update(t.Context(), ccl); err != nil {
		t.Fatal(err)
	}
}

// Faults stay with their Cluster: a provisioned Cluster without a kubeconfig Secret and one with a malformed
// kubeconfig are reported with the cluster's name, in an error and a Warning event on the Cluster, without any
// credential; one whose API server is unreachable is engaged (engaging never waits for a cluster's API server) and
// its controllers' sources retry on their own; none of them holds up a healthy Cluster. Once its Secret is fixed, a
// broken Cluster is engaged.
func TestFaultsAreIsolated(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "capi-faults", mcHost, "member-0", "member-1")
	harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0", "member-1")
	const secret = "s3cr3t-token-never-shown"
	p, _, rec, _ := start(t, capi.Options{
		ClusterOptions:   []cluster.Option{harness.InNamespace(ns)},
		WaitCacheTimeout: 2 * time.Second,
	})

	createCluster(t, ns, "unreachable", true)
	setKubeconfig(t, ns, "unreachable", "", []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", certificate-authority-data: `+base64.StdEncoding.EncodeToString(harness.Config(t, fleet, "member-0").CAData)+`}}]
users: [{name: u, user: {token: `+secret+`}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`)...)
	createCluster(t, ns, "nosecret", true)
	createCluster(t, ns, "malformed", true)
	setKubeconfig(t, ns, "malformed", "", []byte("not a kubeconfig [token: "+secret)...)
	createCluster(t, ns, "healthy", true)
	setKubeconfig(t, ns, "healthy", "member-0")

	harness.Eventually(t, 0, "healthy reconciled despite the broken Clusters", func() bool {
		return rec.Has(harness.Seen(multicluster.ClusterName(ns+"/healthy"), "obj", "member-0"))
	})
	harness.Eventually(t, 0, "a Warning event naming each broken Cluster", func() bool {
		warned := warnedAbout(t, ns, secret)
		return warned["nosecret"] && warned["malformed"]
	})
	for _, broken := range []string{"nosecret", "malformed", "unreachable"} {
		name := multicluster.ClusterName(ns + "/" + broken)
		if rec.Has(harness.Seen(name, "obj", "member-0")) || rec.Has(harness.Seen(name, "obj", "member-1")) {
			t.Errorf("reconciled an object of the broken Cluster %s", broken)
		}
	}

	setKubeconfig(t, ns, "nosecret", "member-1")
	setKubeconfig(t, ns, "malformed", "member-1")
	harness.Eventually(t, 0, "fixed Clusters engaged", func() bool {
		return rec.Has(harness.Seen(multicluster.ClusterName(ns+"/nosecret"), "obj", "member-1")) &&
			rec.Has(harness.Seen(multicluster.ClusterName(ns+"/malformed"), "obj", "member-1"))
	})
	harness.Eventually(t, 0, "the unreachable cluster engaged too", func() bool {
		return slices.Contains(p.ListClusters(), multicluster.ClusterName(ns+"/unreachable"))
	})
}
