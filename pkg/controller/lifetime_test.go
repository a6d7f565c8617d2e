// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package controller_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/util/wait"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// Clusters engaged with lifetimes (clusters.WithLifetime, as providers engage them) are disengaged entirely when
// their lifetimes end: their sources stop, the controller forgets them, and no goroutine is left.
func TestEndedLifetimeLeavesNothing(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	c := newController(t, "lifetimes", newRecorder())
	src := watchFake(t, c)
	stop := start(t, c)

	run, endRun := clusters.WithLifetime(t.Context())
	defer endRun()
	names := []multicluster.ClusterName{"a", "b", "c"}
	cancels := map[multicluster.ClusterName]context.CancelFunc{}
	for _, name := range names {
		ctx, cancel := clusters.WithLifetime(run)
		cancels[name] = cancel
		if err := c.Engage(ctx, name, &fakeCluster{name: name}); err != nil {
			t.Fatal(err)
		}
	}
	started := map[multicluster.ClusterName]startedSource{}
	for range names {
		st := src.waitStarted(t)
		started[st.cluster] = st
	}
	for _, name := range names {
		if _, err := c.Reconcile(t.Context(), request(name, "obj")); err != nil {
			t.Fatalf("Reconcile(%s) error = %v", name, err)
		}
	}
	if n, running := mccontroller.EngagementsOf(c); n != len(names) || running != 0 {
		t.Fatalf("controller holds %d engagements and %d reconciles, want %d and 0", n, running, len(names))
	}

	cancels["a"]()
	endRun() // ends b and c with the run
	for _, name := range names {
		started[name].waitStopped(t, fmt.Sprintf("the source of %s outlived its cluster's lifetime", name))
	}
	if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, wait.ForeverTestTimeout, true,
		func(context.Context) (bool, error) {
			n, _ := mccontroller.EngagementsOf(c)
			return n == 0, nil
		}); err != nil {
		n, _ := mccontroller.EngagementsOf(c)
		t.Fatalf("controller still holds %d engagements after their lifetimes ended", n)
	}

	stop()
	goleak.VerifyNone(t, ignore)
}

// Replacing a cluster stops the reconciles of the instance it replaces, as the end of its context would.
func TestReplacementCancelsRunningReconciles(t *testing.T) {
	r := newBlockingReconciler()
	c := newController(t, "replace-in-flight", r)
	if err := c.Engage(t.Context(), "a", &fakeCluster{name: "a-1"}); err != nil {
		t.Fatal(err)
	}

	done := r.inFlight(t, c, request("a", "obj"))
	if err := c.Engage(t.Context(), "a", &fakeCluster{name: "a-2"}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Reconcile() error = %v, want context.Canceled", err)
	}
	if _, running := mccontroller.EngagementsOf(c); running != 0 {
		t.Errorf("controller tracks %d reconciles after they returned", running)
	}
}
