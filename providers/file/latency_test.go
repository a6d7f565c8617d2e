// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/file"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// latencyRounds is how many files TestLatency adds and removes.
const latencyRounds = 10

// Measures how long the provider takes from a file being written to its cluster being engaged, and from a file
// being removed to its cluster being disengaged (both include the coalescing window), and, with a manager and a
// controller, from a file being written to the first reconcile of an object in its cluster.
func TestLatency(t *testing.T) {
	dir := t.TempDir()
	p, err := file.New(file.Options{KubeconfigDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	aware := harness.NewEngagements()
	harness.StartProvider(t, p, aware)
	data := kubeconfig(t, map[string]string{"c": "member-0"})

	added, removed := make([]time.Duration, 0, latencyRounds), make([]time.Duration, 0, latencyRounds)
	for i := range latencyRounds {
		path := filepath.Join(dir, fmt.Sprintf("lat-%d.kubeconfig", i))
		name := multicluster.ClusterName(path + "+c")
		began := time.Now()
		writeAtomic(t, path, data)
		aware.WaitFor(t, harness.DefaultTimeout, name.String()+" engaged", func() bool { return aware.Cluster(name) != nil })
		added = append(added, aware.EngagedAt(name).Sub(began))

		began = time.Now()
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		aware.WaitFor(t, harness.DefaultTimeout, name.String()+" disengaged", func() bool { return aware.Cluster(name) == nil })
		removed = append(removed, aware.DisengagedAt(name).Sub(began))
	}
	t.Logf("file written -> cluster engaged:    %s", summary(added))
	t.Logf("file removed -> cluster disengaged: %s", summary(removed))

	// With a controller: from writing the file to reconciling an object that exists in the member.
	ns := harness.NewNamespace(t, fleet, "file-latency", "member-1")
	harness.CreateConfigMap(t, fleet, "member-1", ns, "obj")
	other := t.TempDir()
	q, err := file.New(file.Options{KubeconfigDirs: []string{other}, ClusterOptions: []cluster.Option{harness.InNamespace(ns)}})
	if err != nil {
		t.Fatal(err)
	}
	_, rec, _ := harness.StartRecordingManager(t, fleet.Host(), q, nil)
	data = kubeconfig(t, map[string]string{"c": "member-1"})
	reconciled := make([]time.Duration, 0, latencyRounds)
	for i := range latencyRounds {
		path := filepath.Join(other, fmt.Sprintf("lat-%d.kubeconfig", i))
		began := time.Now()
		writeAtomic(t, path, data)
		waitTight(t, "first reconcile", func() bool { return rec.Has(harness.Seen(multicluster.ClusterName(path+"+c"), "obj", "member-1")) })
		reconciled = append(reconciled, time.Since(began))
	}
	t.Logf("file written -> first reconcile:    %s", summary(reconciled))
}

// waitTight polls cond every millisecond, for measurements finer than harness.Eventually's 20ms.
func waitTight(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(harness.DefaultTimeout)
	ticker := time.NewTicker(time.Millisecond)
	defer ticker.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-ticker.C
	}
}

func summary(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	return fmt.Sprintf("min %s, median %s, max %s (n=%d)", s[0].Round(time.Millisecond),
		s[len(s)/2].Round(time.Millisecond), s[len(s)-1].Round(time.Millisecond), len(s))
}
