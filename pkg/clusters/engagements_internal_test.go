// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cluster"
)

// The end of a replaced engagement, even if its watcher ran anyway, never removes the engagement that replaced
// it, and is not reported; the end of the current one is reported once.
func TestEngagementsEndOfAReplacedEngagement(t *testing.T) {
	var ended []*Engagement[struct{}]
	e := NewEngagements(func(eng *Engagement[struct{}]) { ended = append(ended, eng) })
	type instance struct{ cluster.Cluster }
	old, _ := e.Engage(t.Context(), "a", &instance{})
	current, _ := e.Engage(t.Context(), "a", &instance{})

	e.end(old)
	if e.Get("a") != current || len(ended) != 0 {
		t.Fatalf("the end of the replaced engagement removed or reported something: %v", ended)
	}
	e.end(current) // as its watcher does once its context has ended

	e.end(current)
	if e.Len() != 0 || len(ended) != 1 || ended[0] != current {
		t.Errorf("the end of the current engagement: %d held, reported %v; want it forgotten and reported once", e.Len(), ended)
	}
}
