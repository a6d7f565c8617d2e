// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package examples

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/envtest/program"
	"sigs.k8s.io/multicluster-runtime/pkg/util/sanitize"
	"sigs.k8s.io/multicluster-runtime/test/compat/reference/internal/reference"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{})
}

// runs are the tests that run each example program of the reference, by the name of its directory. Every program
// the reference has must have one.
var runs = map[string]func(t *testing.T, bin, kubeconfig string){
	"namespace":         runNamespace,
	"registry":          runRegistry,
	"sharded-namespace": runShardedNamespace,
}

// TestReferenceExamples builds every example program of the reference's module, as the reference ships it, against
// this working tree, and runs each on a local control plane. A program that no longer compiles is a breaking change
// of this module's API for the reference's users.
func TestReferenceExamples(t *testing.T) {
	ref := reference.Download(t)
	scratch := reference.Scratch(t, ref, "reference.invalid/examples", true)
	programs := extract(t, ref.Dir, scratch)

	bin := t.TempDir()
	build := reference.Go(scratch, reference.ScratchEnv(), "build", "-o", bin+string(filepath.Separator), "./examples/...")
	if out, err := build.CombinedOutput(); err != nil {
		reference.Unreachable(t, "building the reference's examples against this module (a program that no longer "+
			"compiles is a breaking change)", err.Error()+"\n"+string(out))
	}

	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := fleet.WriteKubeconfig(kubeconfig, mcenvtest.HostName); err != nil {
		t.Fatal(err)
	}
	for _, name := range programs {
		run, ok := runs[name]
		if !ok {
			t.Errorf("the reference %s has the example program examples/%s, which no test runs: add one to runs",
				reference.Version, name)
			continue
		}
		t.Run(name, func(t *testing.T) { run(t, filepath.Join(bin, name), kubeconfig) })
	}
}

// extract copies the Go files of every program under the reference's examples directory into the scratch module,
// at the same paths, and returns the programs' directory names, sorted.
func extract(t *testing.T, from, to string) []string {
	t.Helper()
	var programs []string
	examples := filepath.Join(from, "examples")
	err := filepath.WalkDir(examples, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(to, filepath.Dir(rel)), 0o750); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, rel), data, 0o600); err != nil {
			return err
		}
		if name := filepath.Base(filepath.Dir(rel)); !slices.Contains(programs, name) {
			programs = append(programs, name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(programs) == 0 {
		t.Fatalf("no example program in %s", examples)
	}
	slices.Sort(programs)
	return programs
}

// runNamespace runs examples/namespace, which creates the namespaces zoo, jungle and island with ConfigMaps and
// reconciles the ConfigMaps of every namespace as the cluster named after it. It starts the namespace provider
// itself beside the manager, which starts it too, and logs with klog (its init sets the logger first). Every
// ConfigMap it created is reconciled in its namespace's cluster, presented in namespace "default", so is one
// created while it runs, no reconcile fails, and it exits cleanly on SIGINT.
func runNamespace(t *testing.T, bin, kubeconfig string) {
	p := program.Start(t, bin, []string{"KUBECONFIG=" + kubeconfig}, "--kubeconfig", kubeconfig)
	for cluster, configMaps := range map[string][]string{"zoo": {"elephant", "lion"}, "jungle": {"monkey"}, "island": {"bird"}} {
		for _, cm := range configMaps {
			p.WaitFor(t, "Reconciling ConfigMap", `cluster="`+cluster+`"`, `namespace="default" name="`+cm+`"`)
		}
	}
	createNamespaceWithConfigMap(t, "reference-namespace", "app-config")
	p.WaitFor(t, "Reconciling ConfigMap", `cluster="reference-namespace"`, `namespace="default" name="app-config"`)
	noReconcileErrors(t, p)
	p.Interrupt(t)
}

// runRegistry runs examples/registry, which adds a clusters.Registry to the manager as a runnable and prints the
// names it holds every second. A namespace is listed once it exists and is no longer listed once it is gone, and
// the program exits cleanly on SIGINT.
func runRegistry(t *testing.T, bin, kubeconfig string) {
	createNamespaceWithConfigMap(t, "reference-registry-a", "")
	p := program.Start(t, bin, []string{"KUBECONFIG=" + kubeconfig})
	listed := func(ns string) bool { return slices.Contains(lastListing(p.Output()), ns) }
	harness.Eventually(t, 0, "reference-registry-a listed", func() bool { return listed("reference-registry-a") })

	createNamespaceWithConfigMap(t, "reference-registry-b", "")
	harness.Eventually(t, 0, "reference-registry-b listed", func() bool { return listed("reference-registry-b") })

	deleteNamespace(t, "reference-registry-b")
	harness.Eventually(t, 0, "reference-registry-b no longer listed", func() bool {
		return !listed("reference-registry-b") && listed("reference-registry-a")
	})
	p.Interrupt(t)
}

// lastListing returns the cluster names of the last complete listing the registry example printed: the lines
// "  - <name>" after the last but one "current clusters:" line, up to the last.
func lastListing(output string) []string {
	blocks := strings.Split(output, "current clusters:\n")
	if len(blocks) < 3 {
		return nil
	}
	var names []string
	for line := range strings.Lines(blocks[len(blocks)-2]) {
		if name, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "  - "); ok {
			names = append(names, name)
		}
	}
	return names
}

// runShardedNamespace runs examples/sharded-namespace: one replica (a second on the same machine would have the
// same peer ID, the hostname) holds every namespace's fence, the Lease kube-system/mcr-shard-<namespace> with
// itself as holder, and reconciles each namespace's ConfigMaps, presented in namespace "default", naming itself as
// the peer. It exits cleanly on SIGINT.
func runShardedNamespace(t *testing.T, bin, kubeconfig string) {
	createNamespaceWithConfigMap(t, "reference-sharded", "app-config")
	p := program.Start(t, bin, []string{"KUBECONFIG=" + kubeconfig})
	p.WaitFor(t, "Reconciling ConfigMap", `"cluster": "reference-sharded"`, `"ns": "default"`, `"name": "app-config"`)
	hostname, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	p.WaitFor(t, "Handled by peer", `"cluster": "reference-sharded"`, `"peer": "`+hostname+`"`)

	c := harness.Client(t, fleet, mcenvtest.HostName)
	lease := &coordinationv1.Lease{}
	key := client.ObjectKey{Namespace: metav1.NamespaceSystem, Name: "mcr-shard-reference-sharded"}
	if err := c.Get(t.Context(), key, lease); err != nil {
		t.Fatalf("the fence of reference-sharded: %v", err)
	}
	if holder := ptr.Deref(lease.Spec.HolderIdentity, ""); holder != sanitize.DNS1123(hostname) && holder != hostname {
		t.Errorf("the fence of reference-sharded is held by %q, want the peer %q", holder, hostname)
	}
	noReconcileErrors(t, p)
	p.Interrupt(t)
}

// createNamespaceWithConfigMap creates the namespace ns on the host and, unless configMap is empty, a ConfigMap of
// that name in it.
func createNamespaceWithConfigMap(t *testing.T, ns, configMap string) {
	t.Helper()
	c := harness.Client(t, fleet, mcenvtest.HostName)
	if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	if configMap == "" {
		return
	}
	if err := c.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: configMap}}); err != nil {
		t.Fatal(err)
	}
}

// deleteNamespace deletes the namespace ns and finalizes it, as the namespace controller of a full cluster would.
func deleteNamespace(t *testing.T, ns string) {
	t.Helper()
	c := harness.Client(t, fleet, mcenvtest.HostName)
	obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	if err := c.Delete(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	obj.Spec.Finalizers = nil
	if err := c.SubResource("finalize").Update(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
}

// noReconcileErrors fails the test if the program logged a failed reconcile.
func noReconcileErrors(t *testing.T, p *program.Process) {
	t.Helper()
	if errs := p.Lines("Reconciler error"); len(errs) > 0 {
		t.Errorf("reconciles failed:\n%s", strings.Join(errs, "\n"))
	}
}
