// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// The options that trade memory reach every cluster the provider builds: a cache transform in ClusterOptions
// (here, stripping managedFields) holds in the cache of each engaged cluster, and every cluster maps kinds through
// discovery shared with the clusters that serve the same APIs (pkg/restmapper), unless ClusterOptions gives it a
// RESTMapper of its own.
func TestMemoryOptionsReachEveryCluster(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ownMapper  bool
		mapperType string
	}{
		{name: "shared discovery", mapperType: "*restmapper.mapper"},
		{name: "own RESTMapper", ownMapper: true, mapperType: "*apiutil.mapper"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := harness.NewNamespace(t, fleet, "kc-memory", mcenvtest.HostName, "member-0", "member-1")
			dumpOnFailure(t, ns)
			harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0", "member-1")
			opts := []cluster.Option{func(o *cluster.Options) { o.Cache.DefaultTransform = cache.TransformStripManagedFields() }}
			if tc.ownMapper {
				opts = append(opts, func(o *cluster.Options) { o.MapperProvider = apiutil.NewDynamicRESTMapper })
			}
			f := startFleetController(t, kubeconfig.Options{Namespace: ns, ClusterOptions: opts}, ns)
			hc := hostClient(t)
			for _, m := range []string{"member-0", "member-1"} {
				if err := hc.Create(quietContext(t), kubeconfigSecret(ns, m, memberKubeconfig(t, m))); err != nil {
					t.Fatal(err)
				}
			}
			f.waitClusters(t, "member-0", "member-1")
			f.waitReconciled(t, "member-0/obj=member-0", "member-1/obj=member-1")

			for _, m := range []multicluster.ClusterName{"member-0", "member-1"} {
				cl, err := f.mgr.GetCluster(t.Context(), m)
				if err != nil {
					t.Fatal(err)
				}
				key := client.ObjectKey{Namespace: ns, Name: "obj"}
				cached, fromServer := &corev1.ConfigMap{}, &corev1.ConfigMap{}
				if err := cl.GetCache().Get(t.Context(), key, cached); err != nil {
					t.Fatal(err)
				}
				if err := cl.GetAPIReader().Get(t.Context(), key, fromServer); err != nil {
					t.Fatal(err)
				}
				if len(fromServer.ManagedFields) == 0 {
					t.Fatalf("%s: the API server reports no managedFields for %v; the test proves nothing", m, key)
				}
				if len(cached.ManagedFields) != 0 {
					t.Errorf("%s: the cache holds managedFields although ClusterOptions strip them", m)
				}
				if got := fmt.Sprintf("%T", cl.GetRESTMapper()); got != tc.mapperType {
					t.Errorf("%s: RESTMapper %s, want %s", m, got, tc.mapperType)
				}
			}
		})
	}
}
