// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespaced_test

import (
	"slices"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// hostGet reads an object from the host directly; it fails the test on errors other than NotFound, and reports
// whether the object exists.
func (f *verbsFixture) hostGet(t *testing.T, ns, name string, obj client.Object) bool {
	t.Helper()
	err := f.host.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, obj)
	if apierrors.IsNotFound(err) {
		return false
	}
	if err != nil {
		t.Fatalf("host get %s/%s: %v", ns, name, err)
	}
	return true
}

func presented(t *testing.T, what string, obj client.Object) {
	t.Helper()
	if obj.GetNamespace() != metav1.NamespaceDefault {
		t.Fatalf("%s: namespace %q, want it presented as %q", what, obj.GetNamespace(), metav1.NamespaceDefault)
	}
}

// Every verb of a virtual cluster's client works in its namespace, presented as "default": get, list, create,
// update, patch (merge and server-side apply), apply (typed and unstructured apply configurations), delete,
// delete-all-of, status update/patch/get and a sub-resource (ServiceAccount token); so do the cache and the API
// reader. Objects land in the real namespace, never in the neighbour's.
func TestClientVerbsAreScoped(t *testing.T) {
	f := newVerbsFixture(t, "verbs")
	ctx := t.Context()
	vcl := f.vc.GetClient()
	// The neighbour has an object of the same name, which the virtual cluster must never see.
	harness.CreateConfigMapWithClient(t, f.host, f.b, "one", map[string]string{"owner": "b"})

	t.Run("create", func(t *testing.T) {
		one := harness.ConfigMap(metav1.NamespaceDefault, "one", map[string]string{"owner": "a"})
		if err := vcl.Create(ctx, one); err != nil {
			t.Fatal(err)
		}
		presented(t, "created object", one)
		two := harness.ConfigMap("", "two", nil)
		if err := vcl.Create(ctx, two); err != nil {
			t.Fatal(err)
		}
		presented(t, "created object without namespace", two)
		for _, name := range []string{"one", "two"} {
			if !f.hostGet(t, f.a, name, &corev1.ConfigMap{}) {
				t.Fatalf("%s was not created in %s", name, f.a)
			}
		}
		failing := harness.ConfigMap(metav1.NamespaceDefault, "one", nil)
		if err := vcl.Create(ctx, failing); !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating a duplicate: %v", err)
		}
		presented(t, "object of a failed create", failing)
	})

	t.Run("get", func(t *testing.T) {
		for _, ns := range []string{metav1.NamespaceDefault, "", f.a} {
			got := &corev1.ConfigMap{}
			harness.Eventually(t, harness.ShortWait, "cached get", func() bool {
				return vcl.Get(ctx, client.ObjectKey{Namespace: ns, Name: "one"}, got) == nil
			})
			presented(t, "got object", got)
			if got.Data["owner"] != "a" {
				t.Fatalf("got the neighbour's object: %v", got.Data)
			}
		}
		fromAPI := &corev1.ConfigMap{}
		if err := f.vc.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: metav1.NamespaceDefault, Name: "one"}, fromAPI); err != nil {
			t.Fatal(err)
		}
		presented(t, "API reader object", fromAPI)
		fromCache := &corev1.ConfigMap{}
		if err := f.vc.GetCache().Get(ctx, client.ObjectKey{Namespace: metav1.NamespaceDefault, Name: "one"}, fromCache); err != nil {
			t.Fatal(err)
		}
		presented(t, "cache object", fromCache)
	})

	t.Run("list", func(t *testing.T) {
		for _, reader := range []client.Reader{vcl, f.vc.GetCache(), f.vc.GetAPIReader()} {
			for _, opts := range [][]client.ListOption{nil, {client.InNamespace(metav1.NamespaceDefault)}} {
				list := &corev1.ConfigMapList{}
				harness.Eventually(t, harness.ShortWait, "list of one and two", func() bool {
					if err := reader.List(ctx, list, opts...); err != nil {
						t.Fatal(err)
					}
					return len(list.Items) == 2
				})
				names := make([]string, 0, len(list.Items))
				for i := range list.Items {
					presented(t, "listed object", &list.Items[i])
					names = append(names, list.Items[i].Name)
				}
				if slices.Sort(names); !slices.Equal(names, []string{"one", "two"}) {
					t.Fatalf("listed %v", names)
				}
			}
		}
		meta := &metav1.PartialObjectMetadataList{}
		meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
		if err := f.vc.GetAPIReader().List(ctx, meta); err != nil {
			t.Fatal(err)
		}
		if len(meta.Items) != 2 {
			t.Fatalf("metadata list: %d items", len(meta.Items))
		}
		for i := range meta.Items {
			presented(t, "metadata list item", &meta.Items[i])
		}
	})

	t.Run("update", func(t *testing.T) {
		one := &corev1.ConfigMap{}
		if err := f.vc.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: metav1.NamespaceDefault, Name: "one"}, one); err != nil {
			t.Fatal(err)
		}
		one.Data["updated"] = "yes"
		if err := vcl.Update(ctx, one); err != nil {
			t.Fatal(err)
		}
		presented(t, "updated object", one)
		onHost := &corev1.ConfigMap{}
		f.hostGet(t, f.a, "one", onHost)
		if onHost.Data["updated"] != "yes" {
			t.Fatalf("update did not land: %v", onHost.Data)
		}
	})

	t.Run("patch", func(t *testing.T) {
		one := &corev1.ConfigMap{}
		if err := f.vc.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: metav1.NamespaceDefault, Name: "one"}, one); err != nil {
			t.Fatal(err)
		}
		original := one.DeepCopy()
		one.Data["merged"] = "yes"
		if err := vcl.Patch(ctx, one, client.MergeFrom(original)); err != nil {
			t.Fatalf("merge patch: %v", err)
		}
		presented(t, "merge-patched object", one)

		ssa := &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: "ssa"},
			Data:       map[string]string{"applied": "patch"},
		}
		//nolint:staticcheck // SA1019: a server-side apply patch through Patch must keep working in a virtual cluster.
		if err := vcl.Patch(ctx, ssa, client.Apply, client.FieldOwner("verbs"), client.ForceOwnership); err != nil {
			t.Fatalf("server-side apply patch: %v", err)
		}
		presented(t, "server-side applied object", ssa)

		onHost := &corev1.ConfigMap{}
		f.hostGet(t, f.a, "one", onHost)
		if onHost.Data["merged"] != "yes" {
			t.Fatalf("merge patch did not land: %v", onHost.Data)
		}
		if !f.hostGet(t, f.a, "ssa", &corev1.ConfigMap{}) {
			t.Fatalf("server-side apply did not land in %s", f.a)
		}
	})

	t.Run("apply", func(t *testing.T) {
		typed := corev1ac.ConfigMap("applied", metav1.NamespaceDefault).WithData(map[string]string{"applied": "typed"})
		if err := vcl.Apply(ctx, typed, client.FieldOwner("verbs")); err != nil {
			t.Fatalf("typed apply: %v", err)
		}
		if ns := *typed.Namespace; ns != metav1.NamespaceDefault {
			t.Fatalf("typed apply configuration came back in namespace %q", ns)
		}
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("v1")
		u.SetKind("ConfigMap")
		u.SetName("applied-u")
		if err := unstructured.SetNestedField(u.Object, "unstructured", "data", "applied"); err != nil {
			t.Fatal(err)
		}
		if err := vcl.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("verbs")); err != nil {
			t.Fatalf("unstructured apply: %v", err)
		}
		presented(t, "unstructured apply configuration", u)
		for _, name := range []string{"applied", "applied-u"} {
			if !f.hostGet(t, f.a, name, &corev1.ConfigMap{}) {
				t.Fatalf("%s was not applied in %s", name, f.a)
			}
		}
	})

	t.Run("status", func(t *testing.T) {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: "pod"},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.com/image"}}},
		}
		if err := vcl.Create(ctx, pod); err != nil {
			t.Fatal(err)
		}
		pod.Status.Message = "updated"
		if err := vcl.Status().Update(ctx, pod); err != nil {
			t.Fatalf("status update: %v", err)
		}
		presented(t, "status-updated object", pod)
		original := pod.DeepCopy()
		pod.Status.Reason = "Patched"
		if err := vcl.Status().Patch(ctx, pod, client.MergeFrom(original)); err != nil {
			t.Fatalf("status patch: %v", err)
		}
		presented(t, "status-patched object", pod)
		status := &corev1.Pod{}
		if err := vcl.SubResource("status").Get(ctx, pod, status); err != nil {
			t.Fatalf("status get: %v", err)
		}
		presented(t, "status sub-resource", status)
		onHost := &corev1.Pod{}
		f.hostGet(t, f.a, "pod", onHost)
		if onHost.Status.Message != "updated" || onHost.Status.Reason != "Patched" {
			t.Fatalf("status writes did not land: %+v", onHost.Status)
		}
	})

	t.Run("sub-resource", func(t *testing.T) {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: "robot"}}
		if err := vcl.Create(ctx, sa); err != nil {
			t.Fatal(err)
		}
		token := &authenticationv1.TokenRequest{}
		if err := vcl.SubResource("token").Create(ctx, sa, token); err != nil {
			t.Fatalf("token create: %v", err)
		}
		presented(t, "service account", sa)
		if token.Status.Token == "" {
			t.Fatal("no token issued")
		}
		if token.Namespace != "" {
			presented(t, "token request", token)
		}
	})

	t.Run("delete", func(t *testing.T) {
		two := harness.ConfigMap(metav1.NamespaceDefault, "two", nil)
		if err := vcl.Delete(ctx, two); err != nil {
			t.Fatal(err)
		}
		presented(t, "deleted object", two)
		if f.hostGet(t, f.a, "two", &corev1.ConfigMap{}) {
			t.Fatal("two was not deleted")
		}
		if !f.hostGet(t, f.b, "one", &corev1.ConfigMap{}) {
			t.Fatal("the neighbour's object is gone")
		}
	})

	t.Run("delete-all-of", func(t *testing.T) {
		labels := map[string]string{"group": "sweep"}
		for _, name := range []string{"sweep-1", "sweep-2"} {
			obj := harness.ConfigMap(metav1.NamespaceDefault, name, nil)
			obj.Labels = labels
			if err := vcl.Create(ctx, obj); err != nil {
				t.Fatal(err)
			}
		}
		neighbour := harness.ConfigMap(f.b, "sweep-b", nil)
		neighbour.Labels = labels
		if err := f.host.Create(ctx, neighbour); err != nil {
			t.Fatal(err)
		}
		if err := vcl.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.MatchingLabels(labels)); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"sweep-1", "sweep-2"} {
			if f.hostGet(t, f.a, name, &corev1.ConfigMap{}) {
				t.Fatalf("%s was not deleted", name)
			}
		}
		if !f.hostGet(t, f.b, "sweep-b", &corev1.ConfigMap{}) {
			t.Fatal("delete-all-of reached the neighbour")
		}
		if err := vcl.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(metav1.NamespaceDefault), client.MatchingLabels{"group": "none"}); err != nil {
			t.Fatalf("delete-all-of in namespace default: %v", err)
		}
	})
}

// A request that names another namespace through a virtual cluster fails with an error naming the virtual
// cluster and that namespace, for every verb of the client, cache and API reader, and nothing is read from or
// written to that namespace.
func TestClientRefusesOtherNamespaces(t *testing.T) {
	f := newVerbsFixture(t, "refuse")
	ctx := t.Context()
	vcl := f.vc.GetClient()
	harness.CreateConfigMapWithClient(t, f.host, f.b, "theirs", map[string]string{"owner": "b"})
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.b, Name: "pod"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.com/image"}}},
	}
	if err := f.host.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	theirs := func() *corev1.ConfigMap { return harness.ConfigMap(f.b, "theirs", map[string]string{"owner": "a"}) }

	checks := map[string]func() error{
		"get": func() error {
			return vcl.Get(ctx, client.ObjectKey{Namespace: f.b, Name: "theirs"}, &corev1.ConfigMap{})
		},
		"cache get": func() error {
			return f.vc.GetCache().Get(ctx, client.ObjectKey{Namespace: f.b, Name: "theirs"}, &corev1.ConfigMap{})
		},
		"api get": func() error {
			return f.vc.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: f.b, Name: "theirs"}, &corev1.ConfigMap{})
		},
		"list":          func() error { return vcl.List(ctx, &corev1.ConfigMapList{}, client.InNamespace(f.b)) },
		"cache list":    func() error { return f.vc.GetCache().List(ctx, &corev1.ConfigMapList{}, client.InNamespace(f.b)) },
		"api list":      func() error { return f.vc.GetAPIReader().List(ctx, &corev1.ConfigMapList{}, client.InNamespace(f.b)) },
		"create":        func() error { return vcl.Create(ctx, harness.ConfigMap(f.b, "intruder", nil)) },
		"update":        func() error { return vcl.Update(ctx, theirs()) },
		"patch":         func() error { return vcl.Patch(ctx, theirs(), client.MergeFrom(harness.ConfigMap(f.b, "theirs", nil))) },
		"delete":        func() error { return vcl.Delete(ctx, theirs()) },
		"delete-all-of": func() error { return vcl.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(f.b)) },
		"apply": func() error {
			return vcl.Apply(ctx, corev1ac.ConfigMap("intruder", f.b).WithData(map[string]string{"k": "v"}), client.FieldOwner("refuse"))
		},
		"status update": func() error { return vcl.Status().Update(ctx, pod.DeepCopy()) },
		"status patch": func() error {
			return vcl.Status().Patch(ctx, pod.DeepCopy(), client.MergeFrom(pod.DeepCopy()))
		},
		"sub-resource create": func() error {
			sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: f.b, Name: "default"}}
			return vcl.SubResource("token").Create(ctx, sa, &authenticationv1.TokenRequest{})
		},
		"sub-resource body": func() error {
			sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: "default"}}
			return vcl.SubResource("token").Create(ctx, sa, &authenticationv1.TokenRequest{ObjectMeta: metav1.ObjectMeta{Namespace: f.b}})
		},
	}
	for what, check := range checks {
		harness.ErrorNames(t, what, check(), f.a, f.b)
	}

	if f.hostGet(t, f.b, "intruder", &corev1.ConfigMap{}) {
		t.Fatal("an object was created in the other namespace")
	}
	got := &corev1.ConfigMap{}
	if !f.hostGet(t, f.b, "theirs", got) || got.Data["owner"] != "b" {
		t.Fatalf("the other namespace's object was changed or deleted: %+v", got.Data)
	}
}

// Cluster-scoped kinds pass through a virtual cluster unchanged: it reads the shared cluster's Namespaces (its own
// under its real name, and others) and writes cluster-scoped objects to the shared cluster.
func TestClusterScopedKindsPassThrough(t *testing.T) {
	f := newVerbsFixture(t, "cluster-scoped")
	ctx := t.Context()
	vcl := f.vc.GetClient()

	for _, name := range []string{f.a, f.b} {
		ns := &corev1.Namespace{}
		if err := f.vc.GetAPIReader().Get(ctx, client.ObjectKey{Name: name}, ns); err != nil {
			t.Fatalf("get namespace %s: %v", name, err)
		}
		if ns.Name != name || ns.Namespace != "" {
			t.Fatalf("namespace %s came back as %q/%q", name, ns.Namespace, ns.Name)
		}
	}
	list := &corev1.NamespaceList{}
	if err := vcl.List(ctx, list); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(list.Items, func(ns corev1.Namespace) bool { return ns.Name == f.b }) {
		t.Fatal("the namespace list through a virtual cluster lacks another namespace")
	}

	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: harness.UniqueName("cluster-scoped-role")}}
	if err := vcl.Create(ctx, role); err != nil {
		t.Fatal(err)
	}
	if role.Namespace != "" {
		t.Fatalf("cluster-scoped object came back in namespace %q", role.Namespace)
	}
	if !f.hostGet(t, "", role.Name, &rbacv1.ClusterRole{}) {
		t.Fatal("the cluster role was not created on the shared cluster")
	}
	if err := vcl.Delete(ctx, role); err != nil {
		t.Fatal(err)
	}
}
