// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubebuilder

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/envtest/program"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

const (
	// project is the kubebuilder project, a module written for the reference implementation.
	project = "testdata/project"
	// secretsNamespace holds the Secrets of the fleet's kubeconfigs on the host.
	secretsNamespace = "fleet-kubeconfigs"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{
		Members:               2,
		CRDDirectoryPaths:     []string{filepath.Join(project, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	})
}

var greetingGVK = schema.GroupVersionKind{Group: "fleet.example.com", Version: "v1alpha1", Kind: "Greeting"}

// The project's manager, built against this working tree, finds the members through the kubeconfig Secrets the
// reference's kubeconfig provider reads (label sigs.k8s.io/multicluster-runtime-kubeconfig=true, key kubeconfig,
// each cluster named after its Secret), and in every member writes the ConfigMap of each Greeting and the
// Greeting's status; it writes a ConfigMap again when it is deleted (its Owns watch), and exits cleanly on SIGINT.
func TestScaffoldedProjectReconcilesEveryMember(t *testing.T) {
	bin := build(t)

	host := harness.Client(t, fleet, mcenvtest.HostName)
	if err := host.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: secretsNamespace}}); err != nil {
		t.Fatal(err)
	}
	members := fleet.Members()
	for _, member := range members {
		kubeconfig, err := fleet.Kubeconfig(member)
		if err != nil {
			t.Fatal(err)
		}
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: secretsNamespace, Name: member,
				Labels: map[string]string{"sigs.k8s.io/multicluster-runtime-kubeconfig": "true"},
			},
			Data: map[string][]byte{"kubeconfig": kubeconfig},
		}
		if err := host.Create(t.Context(), secret); err != nil {
			t.Fatal(err)
		}
	}
	hostKubeconfig := filepath.Join(t.TempDir(), "host")
	if err := fleet.WriteKubeconfig(hostKubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}

	p := program.Start(t, bin, []string{"KUBECONFIG=" + hostKubeconfig},
		"--kubeconfig-namespace", secretsNamespace, "--health-probe-bind-address", "0")
	p.WaitFor(t, "Starting manager")

	for _, member := range members {
		greeting := &unstructured.Unstructured{}
		greeting.SetGroupVersionKind(greetingGVK)
		greeting.SetNamespace(metav1.NamespaceDefault)
		greeting.SetName("hello")
		if err := unstructured.SetNestedField(greeting.Object, "hello from "+member, "spec", "message"); err != nil {
			t.Fatal(err)
		}
		if err := harness.Client(t, fleet, member).Create(t.Context(), greeting); err != nil {
			t.Fatal(err)
		}
	}
	for _, member := range members {
		waitForGreeting(t, member)
	}

	// The Owns watch of the ConfigMaps works in the members too: a deleted ConfigMap is written again.
	c := harness.Client(t, fleet, members[1])
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: "hello-greeting"}}
	if err := c.Delete(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "the ConfigMap of "+members[1]+" written again", func() bool {
		got := &corev1.ConfigMap{}
		return c.Get(t.Context(), client.ObjectKeyFromObject(cm), got) == nil && got.DeletionTimestamp == nil && got.UID != cm.UID
	})

	if errs := p.Lines("Reconciler error"); len(errs) > 0 {
		t.Errorf("reconciles failed:\n%s", strings.Join(errs, "\n"))
	}
	p.Interrupt(t)
}

// waitForGreeting waits until the member holds the ConfigMap of its Greeting "hello", naming the member as its
// cluster, and the Greeting's status says so.
func waitForGreeting(t *testing.T, member string) {
	t.Helper()
	c := harness.Client(t, fleet, member)
	harness.Eventually(t, 0, "the ConfigMap of the Greeting in "+member, func() bool {
		cm := &corev1.ConfigMap{}
		err := c.Get(t.Context(), client.ObjectKey{Namespace: metav1.NamespaceDefault, Name: "hello-greeting"}, cm)
		return err == nil && cm.Data["cluster"] == member && cm.Data["message"] == "hello from "+member
	})
	harness.Eventually(t, 0, "the status of the Greeting in "+member, func() bool {
		greeting := &unstructured.Unstructured{}
		greeting.SetGroupVersionKind(greetingGVK)
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: metav1.NamespaceDefault, Name: "hello"}, greeting); err != nil {
			return false
		}
		conditions, _, _ := unstructured.NestedSlice(greeting.Object, "status", "conditions")
		for _, cond := range conditions {
			if m, ok := cond.(map[string]any); ok && m["type"] == "Available" && m["status"] == "True" {
				return true
			}
		}
		return false
	})
}

// offline matches the output of a go command that could not reach the Go module proxy or checksum database.
var offline = regexp.MustCompile(`dial tcp|no such host|connection refused|i/o timeout|network is unreachable|` +
	`proxyconnect|TLS handshake timeout|Temporary failure in name resolution`)

// build copies the project into a scratch directory, points its requirement of sigs.k8s.io/multicluster-runtime
// at this working tree with a replace directive (the installation's only step; the module's own requirements raise
// controller-runtime and k8s.io/* to this module's versions), and builds its manager. The program is not changed.
// Modules missing from the module cache are downloaded; without a network the test skips, except in CI.
func build(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	scratch := filepath.Join(t.TempDir(), "project")
	if err := os.CopyFS(scratch, os.DirFS(project)); err != nil {
		t.Fatal(err)
	}
	// The project's go.sum covers the reference's dependencies; this module's covers the working tree's.
	sums, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(scratch, "go.sum"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(sums); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	bin := filepath.Join(t.TempDir(), "manager")
	for _, args := range [][]string{
		{"mod", "edit", "-replace", "sigs.k8s.io/multicluster-runtime=" + root},
		{"build", "-o", bin, "./cmd"},
	} {
		cmd := exec.Command("go", args...)
		cmd.Dir = scratch
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			if os.Getenv("CI") != "true" && offline.Match(out) {
				t.Skipf("the Go module proxy cannot be reached to build the project (this test never skips in CI): %s", out)
			}
			t.Fatalf("go %s (the project not compiling against this module is a breaking change): %v\n%s",
				strings.Join(args, " "), err, out)
		}
	}
	return bin
}
