// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/file"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// A provider run by a manager with a controller, through many files added, changed and removed, leaves no goroutine
// behind once the manager has stopped: not its watcher, nor its workers, nor anything of the clusters it engaged.
// Idle HTTP keep-alive connections of client-go's shared transports are not the provider's and are ignored.
func TestNoGoroutineLeaks(t *testing.T) {
	dir := t.TempDir()
	ns := harness.NewNamespace(t, fleet, "file-leak", "member-0", "member-1")
	harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0", "member-1")
	ignore := goleak.IgnoreCurrent()

	p, err := file.New(file.Options{KubeconfigDirs: []string{dir}, ClusterOptions: []cluster.Option{harness.InNamespace(ns)}})
	if err != nil {
		t.Fatal(err)
	}
	_, rec, stop := harness.StartRecordingManager(t, fleet.Host(), p, nil)
	on0 := kubeconfig(t, map[string]string{"c": "member-0"})
	on1 := kubeconfig(t, map[string]string{"c": "member-1"})
	for i := range leakRounds {
		path := filepath.Join(dir, fmt.Sprintf("leak-%d.kubeconfig", i))
		name := multicluster.ClusterName(path + "+c")
		writeAtomic(t, path, on0)
		harness.Eventually(t, 0, name.String()+" reconciled from member-0", func() bool { return rec.Has(harness.Seen(name, "obj", "member-0")) })
		writeAtomic(t, path, on1)
		harness.Eventually(t, 0, name.String()+" reconciled from member-1", func() bool { return rec.Has(harness.Seen(name, "obj", "member-1")) })
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		harness.Eventually(t, 0, name.String()+" gone", func() bool { return len(p.ClusterNames()) == 0 })
	}
	stop()

	if err := harness.EventuallyNoLeak(t, ignore); err != nil {
		t.Error(err)
	}
}

// leakRounds is how many times TestNoGoroutineLeaks adds, replaces and removes a file.
const leakRounds = 20
