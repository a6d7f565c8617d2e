// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package customprovider_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"sigs.k8s.io/multicluster-runtime/docs/snippets/customprovider"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// What discovery returns is engaged, what it no longer returns is disengaged, a discovery failure is retried and
// changes nothing, and Start returns when its context ends. (The clusters have no informers, so they sync without
// reaching their API servers; engaging real clusters is what pkg/clusters and the providers' tests cover.)
func TestPollsAndEngages(t *testing.T) {
	found := make(chan map[multicluster.ClusterName]*rest.Config, 1)
	found <- map[multicluster.ClusterName]*rest.Config{"east": {Host: "https://east.example"}, "west": {Host: "https://west.example"}}
	p := customprovider.New(func(context.Context) (map[multicluster.ClusterName]*rest.Config, error) {
		select {
		case f := <-found:
			return f, nil
		default:
			return nil, context.DeadlineExceeded
		}
	}, 10*time.Millisecond)
	engaged := harness.NewEngagements()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- p.Start(ctx, engaged) }()
	engaged.WaitFor(t, time.Minute, "east and west engaged", func() bool { return len(engaged.Names()) == 2 })

	found <- map[multicluster.ClusterName]*rest.Config{"east": {Host: "https://east.example"}}
	engaged.WaitFor(t, time.Minute, "west disengaged", func() bool {
		names := engaged.Names()
		return len(names) == 1 && names[0] == "east"
	})
	if n := engaged.Count(); n != 2 {
		t.Errorf("%d engagements, want 2: east, unchanged, is not engaged again", n)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Start() = %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Start did not return")
	}
}
