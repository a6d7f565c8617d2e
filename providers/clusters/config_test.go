// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// AddConfig and AddOrReplaceConfig build clusters the way the library's providers do (clusters.NewCluster) and
// engage them, before and after the provider starts: each member's ConfigMap is reconciled under its name, the
// clusters map kinds through the shared discovery of pkg/restmapper unless the caller's options chose a RESTMapper
// (the caller's options win), an equal config replaces nothing, a changed one replaces the cluster, and stopping
// the manager leaves no goroutine behind.
func TestAddConfigEngagesMembers(t *testing.T) {
	defer goleak.VerifyNone(t, harness.LeakOptions(goleak.IgnoreCurrent())...)

	ns := fmt.Sprintf("addconfig-%d", time.Now().UnixNano())
	for _, m := range []string{"member-0", "member-1"} {
		c := harness.Client(t, fleet, m)
		if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
		if err := c.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cm"}}); err != nil {
			t.Fatal(err)
		}
	}

	provider := clusters.New()
	// Before Start: kept, engaged when the provider starts.
	if err := provider.AddConfig(t.Context(), "member-0", harness.Config(t, fleet, "member-0")); err != nil {
		t.Fatal(err)
	}

	mgr := harness.NewManager(t, harness.Config(t, fleet, mcenvtest.HostName), provider, nil)
	seen := harness.NewRecorder()
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named("addconfig").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			if req.Namespace == ns {
				seen.Add(req.ClusterName.String() + "/" + req.Name)
			}
			return reconcile.Result{}, nil
		})); err != nil {
		t.Fatal(err)
	}
	stop := harness.StartManager(t, t.Context(), mgr)

	// After Start: engaged at once; the caller's RESTMapper wins over the shared one.
	ownMapper := func(o *cluster.Options) { o.MapperProvider = apiutil.NewDynamicRESTMapper }
	if err := provider.AddConfig(t.Context(), "member-1", harness.Config(t, fleet, "member-1"), ownMapper); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, deadline, "both members reconciled", func() bool {
		return seen.Has("member-0/cm") && seen.Has("member-1/cm")
	})
	for name, want := range map[multicluster.ClusterName]string{"member-0": "*restmapper.mapper", "member-1": "*apiutil.mapper"} {
		cl, err := provider.Get(t.Context(), name)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%T", cl.GetRESTMapper()); got != want {
			t.Errorf("cluster %s maps kinds with %s, want %s", name, got, want)
		}
	}
	if got := provider.ClusterNames(); len(got) != 2 || got[0] != "member-0" || got[1] != "member-1" {
		t.Errorf("ClusterNames() = %v, want both members", got)
	}

	// An equal config changes nothing; a changed one replaces the cluster.
	before, _ := provider.Get(t.Context(), "member-0")
	if err := provider.AddOrReplaceConfig(t.Context(), "member-0", harness.Config(t, fleet, "member-0")); err != nil {
		t.Fatal(err)
	}
	if after, _ := provider.Get(t.Context(), "member-0"); after != before {
		t.Error("AddOrReplaceConfig with an equal config replaced the cluster")
	}
	changed := rest.CopyConfig(harness.Config(t, fleet, "member-0"))
	changed.QPS = 123
	if err := provider.AddOrReplaceConfig(t.Context(), "member-0", changed); err != nil {
		t.Fatal(err)
	}
	after, err := provider.Get(t.Context(), "member-0")
	if err != nil || after == before || after.GetConfig().QPS != 123 {
		t.Errorf("AddOrReplaceConfig with a changed config: cluster %v (err %v), want a new cluster with the new config", after, err)
	}
	c := harness.Client(t, fleet, "member-0")
	if err := c.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "after-replace"}}); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, deadline, "the replaced member reconciled", func() bool { return seen.Has("member-0/after-replace") })

	stop()
}

// A cluster that cannot be built is an error naming it, and nothing is added.
func TestAddConfigRejectsWhatCannotBeBuilt(t *testing.T) {
	provider := clusters.New()
	err := provider.AddConfig(t.Context(), "broken", nil)
	if err == nil || !strings.Contains(err.Error(), `"broken"`) {
		t.Errorf("AddConfig(nil config) error = %v, want one naming the cluster", err)
	}
	bad := &rest.Config{Host: "https://127.0.0.1:1", TLSClientConfig: rest.TLSClientConfig{CAData: []byte("not a certificate")}}
	err = provider.AddOrReplaceConfig(t.Context(), "bad-ca", bad)
	if err == nil || !strings.Contains(err.Error(), `"bad-ca"`) {
		t.Errorf("AddOrReplaceConfig(bad CA) error = %v, want one naming the cluster", err)
	}
	if names := provider.ClusterNames(); len(names) != 0 {
		t.Errorf("ClusterNames() = %v after failed adds, want none", names)
	}
}

// deadline bounds every Eventually of this package.
const deadline = time.Minute

// fleet is a host and two members on real control planes, shared by the tests of this package that need them.
var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 2})
}
