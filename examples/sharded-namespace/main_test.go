// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/envtest/program"
	"sigs.k8s.io/multicluster-runtime/pkg/manager/coordinator/sharded"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{})
}

// apply creates every object of a manifest file; with dryRun the API server validates them without storing them.
func apply(t *testing.T, c client.Client, path string, dryRun bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); errors.Is(err, io.EOF) {
			return
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		var opts []client.CreateOption
		if dryRun {
			opts = append(opts, client.DryRunAll)
		}
		if err := c.Create(t.Context(), obj, opts...); err != nil {
			t.Fatalf("%s: creating %s %s: %v", path, obj.GetKind(), obj.GetName(), err)
		}
	}
}

// writeKubeconfig writes a kubeconfig for the host that authenticates as the example's ServiceAccount.
func writeKubeconfig(t *testing.T) string {
	t.Helper()
	cfg, err := fleet.ServiceAccountConfig(t.Context(), mcenvtest.HostName, "sharded-namespace", "sharded-namespace")
	if err != nil {
		t.Fatal(err)
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["host"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["sharded-namespace"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["sharded-namespace"] = &clientcmdapi.Context{Cluster: "host", AuthInfo: "sharded-namespace"}
	kc.CurrentContext = "sharded-namespace"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// Three replicas, running with exactly the rights of deploy/rbac.yaml, split six team namespaces: each namespace's
// app-config is reconciled by one replica, which the replicas' fences name; when a replica stops, the others take
// its namespaces over. deploy/statefulset.yaml is accepted by the API server.
func TestReplicasSplitTheNamespaces(t *testing.T) {
	admin := harness.Client(t, fleet, mcenvtest.HostName)
	apply(t, admin, "deploy/rbac.yaml", false)
	apply(t, admin, "deploy/statefulset.yaml", true)
	kubeconfig := writeKubeconfig(t)

	teams := []string{"team-0", "team-1", "team-2", "team-3", "team-4", "team-5"}
	for _, team := range teams {
		if err := admin.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: team}}); err != nil {
			t.Fatal(err)
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: team, Name: "app-config"}}
		if err := admin.Create(t.Context(), cm); err != nil {
			t.Fatal(err)
		}
	}

	bin := program.Build(t)
	replicas := map[string]*program.Process{}
	for _, id := range []string{"r-0", "r-1", "r-2"} {
		replicas[id] = program.Start(t, bin, []string{"KUBECONFIG=" + kubeconfig},
			"-peer-id", id, "-fence-namespace", "sharded-namespace",
			"-lease-duration", "4s", "-lease-renew", "1s", "-probe", "500ms")
	}

	// seenBy returns which replica last wrote each team's app-config-seen.
	seenBy := func() map[string]string {
		out := map[string]string{}
		for _, team := range teams {
			cm := &corev1.ConfigMap{}
			if admin.Get(t.Context(), client.ObjectKey{Namespace: team, Name: "app-config-seen"}, cm) == nil {
				out[team] = cm.Data["replica"]
			}
		}
		return out
	}
	// owners reads the fences: which replica holds each team.
	owners := func() map[string][]string {
		list := &fenceReader{}
		list.read(t, admin)
		return list.owners
	}
	harness.Eventually(t, 0, "every team reconciled by the replica whose fence holds it", func() bool {
		seen, own := seenBy(), owners()
		for _, team := range teams {
			if len(own[team]) != 1 || seen[team] != own[team][0] {
				return false
			}
		}
		return true
	})
	for id, p := range replicas {
		p.WaitFor(t, "replica "+id+" owns")
	}

	replicas["r-0"].Interrupt(t)
	harness.Eventually(t, 0, "r-1 and r-2 to own and reconcile every team", func() bool {
		seen, own := seenBy(), owners()
		for _, team := range teams {
			if len(own[team]) != 1 || own[team][0] == "r-0" || seen[team] != own[team][0] {
				return false
			}
		}
		return true
	})
	replicas["r-1"].Interrupt(t)
	replicas["r-2"].Interrupt(t)
}

// fenceReader reads the example's fences.
type fenceReader struct {
	owners map[string][]string // cluster -> replicas whose fence holds it
}

func (l *fenceReader) read(t *testing.T, c client.Client) {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("coordination.k8s.io/v1")
	list.SetKind("LeaseList")
	if err := c.List(t.Context(), list, client.InNamespace("sharded-namespace"),
		client.MatchingLabels{sharded.LabelFence: "sharded-namespace"}); err != nil {
		t.Fatal(err)
	}
	l.owners = map[string][]string{}
	for _, item := range list.Items {
		holder, _, _ := unstructured.NestedString(item.Object, "spec", "holderIdentity")
		for _, cl := range strings.Split(strings.Trim(item.GetAnnotations()[sharded.AnnotationClusters], "[]"), ",") {
			if cl = strings.Trim(cl, `"`); cl != "" {
				l.owners[cl] = append(l.owners[cl], holder)
			}
		}
	}
}
