// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package capi_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	capi "sigs.k8s.io/multicluster-runtime/providers/cluster-api"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// notEngagedFor fails the test if any cluster of namespace ns other than want is held by the provider during d.
func notEngagedFor(t *testing.T, p *capi.Provider, ns string, d time.Duration, want ...multicluster.ClusterName) {
	t.Helper()
	harness.Consistently(t, d, fmt.Sprintf("only %v engaged", want), func() bool {
		if names := namesIn(p, ns); !slices.Equal(names, want) {
			t.Logf("engaged: %v", names)
			return false
		}
		return true
	})
}

// With ObjectToWatch set to another kind (here a ConfigMap of the host, ready when its data says so), the provider
// engages a cluster per object of that kind, "<namespace>/<name>", with the kubeconfig of the Secret
// "<name>-kubeconfig", and leaves Cluster API Clusters alone; a deleted object is disengaged.
func TestObjectToWatchAnotherKind(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "capi-kind", mcHost, "member-0", "member-1")
	harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0", "member-1")
	p, _, rec, _ := start(t, capi.Options{
		ClusterOptions: []cluster.Option{harness.InNamespace(ns)},
		ObjectToWatch:  &corev1.ConfigMap{},
		IsReady: func(_ context.Context, obj client.Object) bool {
			cm, ok := obj.(*corev1.ConfigMap)
			return ok && cm.Data["ready"] == "true"
		},
	})
	c := hostClient(t)

	createCluster(t, ns, "capi", true)
	setKubeconfig(t, ns, "capi", "member-1")
	wl := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "wl"}, Data: map[string]string{"ready": "false"}}
	if err := c.Create(t.Context(), wl); err != nil {
		t.Fatal(err)
	}
	setKubeconfig(t, ns, "wl", "member-0")
	notEngagedFor(t, p, ns, 2*time.Second)

	wl.Data["ready"] = "true"
	if err := c.Update(t.Context(), wl); err != nil {
		t.Fatal(err)
	}
	name := multicluster.ClusterName(ns + "/wl")
	harness.Eventually(t, 0, "the ConfigMap's cluster reconciled", func() bool { return rec.Has(harness.Seen(name, "obj", "member-0")) })
	notEngagedFor(t, p, ns, time.Second, name)

	if err := c.Delete(t.Context(), wl); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "the deleted ConfigMap's cluster disengaged", func() bool { return len(namesIn(p, ns)) == 0 })
}

// An unstructured ObjectToWatch needs no types in the host's scheme: Cluster API Clusters read as unstructured
// objects are engaged by DefaultIsReady's reading of their status, and faults are recorded as Events on them.
func TestObjectToWatchUnstructured(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "capi-unstructured", mcHost, "member-0")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(clusterv1.GroupVersion.WithKind("Cluster"))
	p, mgr, rec, _ := start(t, capi.Options{ClusterOptions: []cluster.Option{harness.InNamespace(ns)}, ObjectToWatch: obj})
	if mgr.GetLocalManager().GetScheme().Recognizes(clusterv1.GroupVersion.WithKind("Cluster")) {
		t.Error("the provider added Cluster API's types to the scheme for an unstructured ObjectToWatch")
	}

	createCluster(t, ns, "pending", false)
	setKubeconfig(t, ns, "pending", "member-0")
	createCluster(t, ns, "wl", true)
	setKubeconfig(t, ns, "wl", "member-0")
	createCluster(t, ns, "nosecret", true)

	name := multicluster.ClusterName(ns + "/wl")
	harness.Eventually(t, 0, "the provisioned Cluster reconciled", func() bool { return rec.Has(harness.Seen(name, "obj", "member-0")) })
	harness.Eventually(t, 0, "a Warning Event on the Cluster without a kubeconfig", func() bool {
		return warnedAbout(t, ns, "")["nosecret"]
	})
	notEngagedFor(t, p, ns, time.Second, name)
}

// IsReady replaces the default test of readiness: here an annotation decides, whatever the Cluster's status says.
// A Cluster it accepts is engaged; one it stops accepting is disengaged.
func TestIsReady(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "capi-ready", mcHost, "member-0")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	const annotation = "test.multicluster-runtime.sigs.k8s.io/ready"
	var mu sync.Mutex
	var types []string
	p, _, rec, _ := start(t, capi.Options{
		ClusterOptions: []cluster.Option{harness.InNamespace(ns)},
		IsReady: func(_ context.Context, obj client.Object) bool {
			mu.Lock()
			types = append(types, fmt.Sprintf("%T", obj))
			mu.Unlock()
			return obj.GetAnnotations()[annotation] == "true"
		},
	})
	c := hostClient(t)

	createCluster(t, ns, "provisioned", true) // ready by its status, not by IsReady
	setKubeconfig(t, ns, "provisioned", "member-0")
	setKubeconfig(t, ns, "annotated", "member-0")
	annotated := createCluster(t, ns, "annotated", false)
	notEngagedFor(t, p, ns, 2*time.Second)

	annotated.Annotations = map[string]string{annotation: "true"}
	if err := c.Update(t.Context(), annotated); err != nil {
		t.Fatal(err)
	}
	name := multicluster.ClusterName(ns + "/annotated")
	harness.Eventually(t, 0, "the annotated Cluster reconciled", func() bool { return rec.Has(harness.Seen(name, "obj", "member-0")) })
	notEngagedFor(t, p, ns, time.Second, name)

	annotated.Annotations[annotation] = "false"
	if err := c.Update(t.Context(), annotated); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "the Cluster IsReady no longer accepts disengaged", func() bool { return len(namesIn(p, ns)) == 0 })

	mu.Lock()
	defer mu.Unlock()
	for _, typ := range types {
		if typ != "*v1beta2.Cluster" {
			t.Errorf("IsReady got a %s, want the watched *v1beta2.Cluster", typ)
		}
	}
}

// Predicates select the Clusters the provider acts on: an unselected Cluster is not engaged, not even when its
// kubeconfig Secret changes (which reaches the provider's controller by another watch), and is engaged once an
// event that passes the predicates selects it.
func TestPredicates(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "capi-predicates", mcHost, "member-0", "member-1")
	harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0", "member-1")
	const label = "test.multicluster-runtime.sigs.k8s.io/fleet"
	selected := predicate.NewPredicateFuncs(func(obj client.Object) bool { return obj.GetLabels()[label] == "yes" })
	p, _, rec, _ := start(t, capi.Options{
		ClusterOptions: []cluster.Option{harness.InNamespace(ns)},
		Predicates:     []predicate.Predicate{selected},
	})
	c := hostClient(t)

	setKubeconfig(t, ns, "in", "member-0")
	in := createCluster(t, ns, "in", false)
	in.Labels = map[string]string{label: "yes"}
	if err := c.Update(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	setProvisioned(t, in)
	setKubeconfig(t, ns, "out", "member-0")
	out := createCluster(t, ns, "out", true)

	inName, outName := multicluster.ClusterName(ns+"/in"), multicluster.ClusterName(ns+"/out")
	harness.Eventually(t, 0, "the selected Cluster reconciled", func() bool { return rec.Has(harness.Seen(inName, "obj", "member-0")) })
	setKubeconfig(t, ns, "out", "member-1") // a Secret event for the unselected Cluster
	notEngagedFor(t, p, ns, 2*time.Second, inName)

	if err := c.Get(t.Context(), client.ObjectKeyFromObject(out), out); err != nil {
		t.Fatal(err)
	}
	out.Labels = map[string]string{label: "yes"}
	if err := c.Update(t.Context(), out); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "the Cluster selected later reconciled", func() bool { return rec.Has(harness.Seen(outName, "obj", "member-1")) })
}

// GetSecret and NewCluster replace how the kubeconfig is found and the cluster built: GetSecret gets a client of
// the host and the watched Cluster, and its kubeconfig wins over the default Secret; NewCluster gets the Cluster,
// the kubeconfig's rest.Config and ClusterOptions. A GetSecret error is reported on the Cluster, naming the
// cluster.
func TestGetSecretAndNewCluster(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "capi-getsecret", mcHost, "member-0", "member-1")
	harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0", "member-1")
	errNoAccess := errors.New("no access configured")
	var mu sync.Mutex
	built := map[string]string{} // object name -> host of the rest.Config
	p, _, rec, _ := start(t, capi.Options{
		ClusterOptions: []cluster.Option{harness.InNamespace(ns)},
		GetSecret: func(ctx context.Context, c client.Client, obj client.Object) ([]byte, error) {
			if _, ok := obj.(*clusterv1.Cluster); !ok || c == nil {
				return nil, fmt.Errorf("got a %T and client %v", obj, c)
			}
			secret := &corev1.Secret{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: obj.GetName() + "-admin"}, secret); err != nil {
				return nil, errNoAccess
			}
			return secret.Data["kubeconfig"], nil
		},
		NewCluster: func(ctx context.Context, obj client.Object, cfg *rest.Config, opts ...cluster.Option) (cluster.Cluster, error) {
			// ClusterOptions come first, then the provider's own (pkg/recovery).
			if len(opts) < 1 {
				return nil, fmt.Errorf("got %d cluster options, want ClusterOptions first", len(opts))
			}
			mu.Lock()
			built[obj.GetName()] = cfg.Host
			mu.Unlock()
			return capi.DefaultNewCluster(ctx, obj, cfg, opts...)
		},
	})

	kubeconfig := harness.Kubeconfig(t, fleet, "member-0")
	admin := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "wl-admin"},
		Data:       map[string][]byte{"kubeconfig": kubeconfig},
	}
	if err := hostClient(t).Create(t.Context(), admin); err != nil {
		t.Fatal(err)
	}
	setKubeconfig(t, ns, "wl", "member-1") // Cluster API's Secret, which GetSecret ignores
	createCluster(t, ns, "wl", true)
	createCluster(t, ns, "noaccess", true)

	name := multicluster.ClusterName(ns + "/wl")
	harness.Eventually(t, 0, "the cluster of GetSecret's kubeconfig reconciled", func() bool { return rec.Has(harness.Seen(name, "obj", "member-0")) })
	harness.Eventually(t, 0, "a Warning Event on the Cluster GetSecret fails for", func() bool {
		return warnedAbout(t, ns, "")["noaccess"]
	})
	if rec.Has(harness.Seen(name, "obj", "member-1")) {
		t.Error("reconciled the cluster of Cluster API's Secret, which GetSecret did not return")
	}
	notEngagedFor(t, p, ns, time.Second, name)

	mu.Lock()
	defer mu.Unlock()
	if want := harness.Config(t, fleet, "member-0").Host; built["wl"] != want {
		t.Errorf("NewCluster built wl for %q, want %q", built["wl"], want)
	}
}
