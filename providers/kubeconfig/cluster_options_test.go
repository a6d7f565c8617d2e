// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// The scheme and client options reach every cluster the provider builds: without ClusterOptions each cluster has
// the host manager's scheme and a client that writes; with ClusterOptions that set a scheme of their own and a
// dry-run client, each engaged cluster has that scheme, and a Create through its client reaches no member.
func TestSchemeAndClientOptionsReachEveryCluster(t *testing.T) {
	own := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(own); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts []cluster.Option
	}{
		{name: "defaults"},
		{name: "ClusterOptions", opts: []cluster.Option{func(o *cluster.Options) {
			o.Scheme = own
			o.Client.DryRun = ptr.To(true)
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			members := []multicluster.ClusterName{"member-0", "member-1"}
			ns := harness.NewNamespace(t, fleet, "kc-options", mcenvtest.HostName, "member-0", "member-1")
			dumpOnFailure(t, ns)
			harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0", "member-1")
			f := startFleetController(t, kubeconfig.Options{Namespace: ns, ClusterOptions: tc.opts}, ns)
			for _, m := range members {
				if err := hostClient(t).Create(quietContext(t), kubeconfigSecret(ns, m.String(), memberKubeconfig(t, m.String()))); err != nil {
					t.Fatal(err)
				}
			}
			f.waitClusters(t, members...)
			f.waitReconciled(t, "member-0/obj=member-0", "member-1/obj=member-1")

			wantScheme, dryRun := f.mgr.GetLocalManager().GetScheme(), tc.opts != nil
			if dryRun {
				wantScheme = own
			}
			for _, m := range members {
				cl, err := f.mgr.GetCluster(t.Context(), m)
				if err != nil {
					t.Fatal(err)
				}
				if cl.GetScheme() != wantScheme {
					t.Errorf("%s: the cluster's scheme is not the one the options give", m)
				}
				written := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "written"}}
				if err := cl.GetClient().Create(t.Context(), written); err != nil {
					t.Fatalf("%s: creating through the cluster's client: %v", m, err)
				}
				err = harness.Client(t, fleet, m.String()).Get(t.Context(), client.ObjectKeyFromObject(written), &corev1.ConfigMap{})
				switch {
				case dryRun && !apierrors.IsNotFound(err):
					t.Errorf("%s: a Create through the dry-run client reached the member (Get: %v)", m, err)
				case !dryRun && err != nil:
					t.Errorf("%s: a Create through the cluster's client did not reach the member: %v", m, err)
				}
			}
		})
	}
}
