// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

func poll(t *testing.T, what string, condition func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(t.Context(), time.Millisecond, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
		return condition(), nil
	}); err != nil {
		t.Fatalf("timed out waiting until %s", what)
	}
}

func TestProviderLifecycle(t *testing.T) {
	p := clusters.New()
	early, late := &harness.IdleCluster{}, &harness.IdleCluster{}

	if err := p.Add(t.Context(), "early", early); err != nil {
		t.Fatalf("Add(early) before Start error = %v", err)
	}

	a := harness.NewEngagements()
	stop := harness.StartProvider(t, p, a)

	poll(t, "early is engaged", func() bool { return a.Context("early") != nil })
	earlyCtx := a.Context("early")
	if cl, err := p.Get(t.Context(), "early"); err != nil || cl != early {
		t.Errorf("Get(early) = (%v, %v), want the added cluster", cl, err)
	}

	if err := p.Add(t.Context(), "late", late); err != nil {
		t.Fatalf("Add(late) after Start error = %v", err)
	}
	lateCtx := a.Context("late")
	if lateCtx == nil {
		t.Error("Add after Start returned before the cluster was engaged")
	}
	if got := p.ClusterNames(); len(got) != 2 || got[0] != "early" || got[1] != "late" {
		t.Errorf("ClusterNames() = %q, want early and late", got)
	}

	if err := p.Add(t.Context(), "late", &harness.IdleCluster{}); err == nil || !strings.Contains(err.Error(), `"late"`) {
		t.Errorf("Add of a present name error = %v, want one naming it", err)
	}

	p.Remove("early")
	poll(t, "early's engagement ends", func() bool { return earlyCtx.Err() != nil })
	if _, err := p.Get(t.Context(), "early"); !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Errorf("Get(early) after Remove error = %v, want ErrClusterNotFound", err)
	}
	if lateCtx.Err() != nil {
		t.Error("removing early ended late's engagement")
	}

	stop() // fails the test unless Start returns nil
	poll(t, "late's engagement ends with the provider", func() bool { return lateCtx.Err() != nil })
}

func TestProviderKeepsEveryClusterAddedBeforeStart(t *testing.T) {
	p := clusters.New()
	n := 3 * clusters.InputChannelSize
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("cluster-%02d", i)
		if err := p.Add(t.Context(), multicluster.ClusterName(names[i]), &harness.IdleCluster{}); err != nil {
			t.Fatalf("Add(%q) error = %v", names[i], err)
		}
	}

	a := harness.NewEngagements()
	go func() { _ = p.Start(t.Context(), a) }()

	poll(t, "every cluster is engaged", func() bool {
		for _, name := range names {
			if a.Context(multicluster.ClusterName(name)) == nil {
				return false
			}
		}
		return true
	})
}

// running returns a provider that runs, with a cluster "a" engaged with the returned aware.
func running(t *testing.T) (*clusters.Provider, *harness.Engagements) {
	p := clusters.New()
	a := harness.NewEngagements()
	if err := p.Add(t.Context(), "a", &harness.IdleCluster{}); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.Start(t.Context(), a) }()
	poll(t, "the provider runs", func() bool { return a.Context("a") != nil })
	return p, a
}

func TestProviderStartTwice(t *testing.T) {
	p, a := running(t)
	if err := p.Start(t.Context(), a); err == nil {
		t.Error("a second Start while the first runs succeeded")
	}
}

func TestProviderAddWithEndedContext(t *testing.T) {
	p, a := running(t)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := p.Add(ctx, "b", &harness.IdleCluster{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Add with an ended context error = %v, want context.Canceled", err)
	}
	if a.Context("b") != nil {
		t.Error("cluster added with an ended context was engaged")
	}
}
