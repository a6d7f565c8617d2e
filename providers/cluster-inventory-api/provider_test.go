// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusterinventoryapi_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	clusterinventoryv1alpha1 "sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	clusterinventoryapi "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api"
	aboutv1alpha1 "sigs.k8s.io/multicluster-runtime/providers/cluster-inventory-api/apis/about/v1alpha1"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// The AccessProvider strategy with a real credential-plugin executable, through a profile's life. A ready profile
// offering the "token" type in status.accessProviders is reached with the token the plugin returns (the API server
// accepts it from its static token file), engaged as "<namespace>/<name>" and reconciled, and the plugin gets the
// cluster's details and extension. A profile offering only "broken", whose plugin fails, and one offering no
// configured type, are not engaged and get Warning events (events.k8s.io) naming the profile and the type; neither
// holds up the healthy profile, and no token appears in events or in the log. A profile of the older API, with
// status.credentialProviders, is engaged too. A new endpoint in the profile replaces the cluster; not ready →
// disengaged; ready again → engaged; deleted → disengaged.
func TestAccessProviderStrategy(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "cip-access", hub, "member-0", "member-1")
	harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0", "member-1")
	infoFile := filepath.Join(t.TempDir(), "exec-info.json")
	logs := &logBuffer{}
	p, mgr, rec, _ := start(t, clusterinventoryapi.Options{
		KubeconfigStrategyOption: accessOption(t, infoFile),
		ClusterOptions:           []cluster.Option{harness.InNamespace(ns)},
		IsReady:                  readyIn(ns),
		ProbeTimeout:             5 * time.Second,
	}, logs)
	good := multicluster.ClusterName(ns + "/good")
	old := multicluster.ClusterName(ns + "/old")

	createProfile(t, ns, "broken", true, accessProviders(accessEntry(t, "broken", "member-1")))
	createProfile(t, ns, "unknown", true, accessProviders(accessEntry(t, "gkeFleet", "member-1")))
	clp := createProfile(t, ns, "good", true, accessProviders(accessEntry(t, "gkeFleet", "member-1"), accessEntry(t, "token", "member-0")))
	createProfile(t, ns, "old", true, credentialProviders(accessEntry(t, "token", "member-1")))
	harness.Eventually(t, 0, string(good)+" reconciled with the plugin's token", func() bool { return rec.Has(harness.Seen(good, "obj", "member-0")) })
	harness.Eventually(t, 0, string(old)+" (credentialProviders) reconciled", func() bool { return rec.Has(harness.Seen(old, "obj", "member-1")) })
	info, err := os.ReadFile(infoFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"server":"https://127.0.0.1`, `"audience":"fleet"`} {
		if !strings.Contains(string(info), want) {
			t.Errorf("the plugin's KUBERNETES_EXEC_INFO lacks %s: %s", want, info)
		}
	}

	harness.Eventually(t, 0, "a Warning naming the broken profile, its plugin and the failure", hasWarning(t, ns, "broken", "credential plugin "+plugin, "exit"))
	harness.Eventually(t, 0, "a Warning naming the profile with no configured type", hasWarning(t, ns, "unknown", "gkeFleet"))
	if got := namesIn(p, ns); !slices.Equal(got, []multicluster.ClusterName{good, old}) {
		t.Errorf("engaged %v, want only %s and %s", got, good, old)
	}
	for _, profile := range []string{"broken", "unknown"} {
		for _, note := range warnings(t, ns, profile) {
			if strings.Contains(note, pluginToken) {
				t.Errorf("event %q shows the token", note)
			}
		}
	}

	setAccessProviders(t, clp, accessEntry(t, "token", "member-1"))
	harness.Eventually(t, 0, string(good)+" replaced by a cluster on member-1", func() bool { return rec.Has(harness.Seen(good, "obj", "member-1")) })

	expectReadyThenDeleted(t, p, mgr, clp, good)

	out := logs.String()
	for _, want := range []string{`"Engaged cluster"`, `"cluster":"` + string(good) + `"`, `"Failed to engage cluster; retrying"`, ns + "/broken"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %s", want)
		}
	}
	if strings.Contains(out, pluginToken) {
		t.Error("the log shows the token")
	}
}

// With ClusterIDName, a profile carrying the KEP-2149 cluster ID property is engaged under its ID, and one without
// under "<namespace>/<name>".
func TestClusterIDNaming(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "cip-id", hub, "member-0")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	p, _, rec, _ := start(t, clusterinventoryapi.Options{
		KubeconfigStrategyOption: accessOption(t, ""),
		ClusterOptions:           []cluster.Option{harness.InNamespace(ns)},
		IsReady:                  readyIn(ns),
		ClusterName:              clusterinventoryapi.ClusterIDName,
	})
	id := multicluster.ClusterName(ns + "-id.example.com")
	createProfile(t, ns, "withid", true, accessProviders(accessEntry(t, "token", "member-0")),
		properties(clusterinventoryv1alpha1.Property{Name: aboutv1alpha1.ClusterIDPropertyName, Value: id.String()}))
	createProfile(t, ns, "noid", true, accessProviders(accessEntry(t, "token", "member-0")))
	noID := multicluster.ClusterName(ns + "/noid")
	harness.Eventually(t, 0, "engaged under the cluster ID and the profile name", func() bool {
		return rec.Has(harness.Seen(id, "obj", "member-0")) && rec.Has(harness.Seen(noID, "obj", "member-0"))
	})
	if names := p.ClusterNames(); slices.Contains(names, multicluster.ClusterName(ns+"/withid")) {
		t.Errorf("the profile with an ID is also engaged under its profile name: %v", names)
	}
}
