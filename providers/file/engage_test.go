// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package file_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// barrierAware is a multicluster.Aware whose Engage blocks until n engagements are in progress at once, or until the
// cluster's context ends.
type barrierAware struct {
	n       int
	mu      sync.Mutex
	inside  int
	all     chan struct{}
	engaged map[multicluster.ClusterName]bool
}

func (b *barrierAware) Engage(ctx context.Context, name multicluster.ClusterName, _ cluster.Cluster) error {
	b.mu.Lock()
	b.inside++
	if b.inside == b.n {
		close(b.all)
	}
	b.mu.Unlock()
	select {
	case <-b.all:
	case <-ctx.Done():
		return ctx.Err()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.engaged[name] = true
	return nil
}

// The contexts found at start are engaged in parallel: an engagement that waits for all the others to begin can
// only finish if none waits for another to end.
func TestContextsEngageInParallel(t *testing.T) {
	const n = 8
	contexts := map[string]string{}
	for i := range n {
		contexts[fmt.Sprintf("c%d", i)] = fmt.Sprintf("member-%d", i%3)
	}
	p, _ := fileProvider(t, "many.kubeconfig", contexts)
	aware := &barrierAware{n: n, all: make(chan struct{}), engaged: map[multicluster.ClusterName]bool{}}
	// Engaged one at a time, the first engagement would wait for this context to end.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := p.RunOnce(ctx, aware); err != nil {
		t.Fatal(err)
	}
	if len(aware.engaged) != n {
		t.Fatalf("engaged %d clusters, want %d", len(aware.engaged), n)
	}
}

// stuckAware is a multicluster.Aware whose Engage blocks, until the cluster's context ends, for clusters reaching
// host stuck; others are recorded by rec.
type stuckAware struct {
	stuck string
	rec   *harness.Engagements
}

func (s *stuckAware) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	if cl.GetConfig().Host == s.stuck {
		<-ctx.Done()
		return ctx.Err()
	}
	return s.rec.Engage(ctx, name, cl)
}

// A context changed while its previous version is still being engaged does not wait for that engagement: the stale
// one is aborted and the current one engaged.
func TestChangeAbortsStaleEngagement(t *testing.T) {
	p, path := fileProvider(t, "fleet.kubeconfig", map[string]string{"c": "member-0"})
	rec := harness.NewEngagements()
	aware := &stuckAware{stuck: harness.Config(t, fleet, "member-0").Host, rec: rec}
	harness.StartProvider(t, p, aware)
	harness.Eventually(t, 0, "c being engaged", func() bool { return len(p.ClusterNames()) == 1 })

	writeFile(t, path, kubeconfig(t, map[string]string{"c": "member-1"}))
	want := harness.Config(t, fleet, "member-1").Host
	rec.WaitFor(t, 10*time.Second, "c engaged on member-1", func() bool {
		cl := rec.Cluster(multicluster.ClusterName(path + "+c"))
		return cl != nil && cl.GetConfig().Host == want
	})
}

// A cluster that fails to engage while the provider runs is retried with backoff, without any change of its file,
// and the failure is reported with the cluster's name.
func TestStartRetriesFailedEngagement(t *testing.T) {
	p, path := fileProvider(t, "fleet.kubeconfig", map[string]string{"c": "member-0"})
	errs := &errorRecorder{}
	p.ErrorHandler = errs.handle
	aware := &failOnceAware{failed: map[multicluster.ClusterName]bool{}, rec: harness.NewEngagements()}
	harness.StartProvider(t, p, aware)
	name := multicluster.ClusterName(path + "+c")
	aware.rec.WaitFor(t, harness.DefaultTimeout, "c engaged on retry", func() bool { return aware.rec.Cluster(name) != nil })
	if len(errs.matching(name.String(), "retrying")) != 1 {
		t.Fatalf("the failure was not reported once with the cluster's name: %v", errs.matching(""))
	}
}
