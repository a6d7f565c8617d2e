// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/file"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// RunOnce engages what the files define when it is called, and watches nothing: later changes wait for the next
// call, which applies them (new, changed and removed contexts alike).
func TestRunOnce(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first.kubeconfig"), filepath.Join(dir, "second.kubeconfig")
	writeFile(t, first, kubeconfig(t, map[string]string{"a": "member-0", "b": "member-1"}))
	p, err := file.New(file.Options{KubeconfigDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	aware := harness.NewEngagements()
	if err := p.RunOnce(ctx, aware); err != nil {
		t.Fatal(err)
	}
	want := clusterNames(first+"+a", first+"+b")
	if got := aware.Names(); !slices.Equal(got, want) {
		t.Fatalf("after RunOnce: engaged %v, want %v", got, want)
	}
	if got := p.ClusterNames(); !slices.Equal(got, want) {
		t.Fatalf("after RunOnce: provider has %v, want %v", got, want)
	}

	writeFile(t, second, kubeconfig(t, map[string]string{"c": "member-2"}))
	writeFile(t, first, kubeconfig(t, map[string]string{"a": "member-1"}))
	harness.Consistently(t, quiet, "no change without a call", func() bool { return slices.Equal(aware.Names(), want) })

	clusterA := aware.Cluster(multicluster.ClusterName(first + "+a"))
	if err := p.RunOnce(ctx, aware); err != nil {
		t.Fatal(err)
	}
	want = clusterNames(first+"+a", second+"+c")
	if got := p.ClusterNames(); !slices.Equal(got, want) {
		t.Fatalf("after the second RunOnce: provider has %v, want %v", got, want)
	}
	// b's removal reaches the recorder asynchronously (see below); c and the new a were engaged by the call.
	aware.WaitFor(t, harness.DefaultTimeout, "b disengaged", func() bool { return slices.Equal(aware.Names(), want) })
	if cl := aware.Cluster(multicluster.ClusterName(first + "+a")); cl == clusterA || cl.GetConfig().Host != harness.Config(t, fleet, "member-1").Host {
		t.Fatal("a was not replaced by a cluster of member-1")
	}

	// A malformed file is reported in the returned error, naming it; the rest is applied.
	bad := filepath.Join(dir, "bad.kubeconfig")
	writeFile(t, bad, []byte("{not yaml"))
	if err := os.Remove(second); err != nil {
		t.Fatal(err)
	}
	err = p.RunOnce(ctx, aware)
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("RunOnce returned %v, want an error naming %s", err, bad)
	}
	want = clusterNames(first + "+a")
	if got := p.ClusterNames(); !slices.Equal(got, want) {
		t.Fatalf("after the third RunOnce: provider has %v, want %v", got, want)
	}
	// Disengaging is cancelling the cluster's context: the recorder hears of it asynchronously.
	aware.WaitFor(t, harness.DefaultTimeout, "c disengaged", func() bool { return slices.Equal(aware.Names(), want) })

	// The clusters live until the context of the call that engaged them ends.
	cancel()
	aware.WaitFor(t, harness.DefaultTimeout, "every cluster disengaged", func() bool { return len(aware.Names()) == 0 })
}

// Start and RunOnce never run at the same time; a provider starts once at a time.
func TestStartAndRunOnceExclusive(t *testing.T) {
	p, err := file.New(file.Options{KubeconfigDirs: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	aware := harness.NewEngagements()
	// The polling RunOnce below may hold the provider for a moment while Start tries to begin: Start, like any
	// caller, then gets an error and tries again.
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		for {
			err := p.Start(ctx, aware)
			if err != nil && strings.Contains(err.Error(), "RunOnce is running") && ctx.Err() == nil {
				continue
			}
			done <- err
			return
		}
	}()
	harness.Eventually(t, 0, "Start running", func() bool { return p.RunOnce(t.Context(), aware) != nil })
	if err := p.Start(t.Context(), aware); err == nil || !strings.Contains(err.Error(), "Start is running") {
		t.Fatalf("second Start returned %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Start returned: %v", err)
	}
	if err := p.RunOnce(t.Context(), aware); err != nil {
		t.Fatalf("RunOnce after Start returned: %v", err)
	}
}

// failOnceAware fails the first engagement of every cluster name, then hands engagements to rec.
type failOnceAware struct {
	mu     sync.Mutex
	failed map[multicluster.ClusterName]bool
	rec    *harness.Engagements
}

func (f *failOnceAware) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	f.mu.Lock()
	first := !f.failed[name]
	f.failed[name] = true
	f.mu.Unlock()
	if first {
		return errors.New("refusing the first engagement")
	}
	return f.rec.Engage(ctx, name, cl)
}

// A cluster that fails to engage makes RunOnce return an error naming it, and the next call tries it again.
func TestRunOnceRetriesFailuresOnNextCall(t *testing.T) {
	p, path := fileProvider(t, "fleet.kubeconfig", map[string]string{"c": "member-0"})
	aware := &failOnceAware{failed: map[multicluster.ClusterName]bool{}, rec: harness.NewEngagements()}
	name := multicluster.ClusterName(path + "+c")
	if err := p.RunOnce(t.Context(), aware); err == nil || !strings.Contains(err.Error(), name.String()) {
		t.Fatalf("first RunOnce returned %v, want an error naming %s", err, name)
	}
	if got := p.ClusterNames(); len(got) != 0 {
		t.Fatalf("a failed cluster is left in the provider: %v", got)
	}
	if err := p.RunOnce(t.Context(), aware); err != nil {
		t.Fatal(err)
	}
	if aware.rec.Cluster(name) == nil {
		t.Fatal("not engaged by the second RunOnce")
	}
}
