// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package faults_test

import (
	"fmt"
	"testing"
	"time"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/faults/rig"
)

const (
	// phase is how long the suite measures a member's write-to-reconcile latency before a fault, to compare.
	unloadedPhase = 10 * time.Second
	// outage is how long a killed API server stays down.
	outage = 10 * time.Second
	// afterRestart is how long the writers go on after the member is back, before the final state is checked.
	afterRestart = 5 * time.Second
	// resumeBound is the longest a member may take, from its API server being ready again, until every informer
	// of its cluster delivers writes to the reconcilers again.
	resumeBound = 5 * time.Second
	// resumeTimeout bounds the wait for a member to resume at all.
	resumeTimeout = 3 * time.Minute
)

// A member's kube-apiserver is killed (SIGKILL) and restarted on the same address after 10 s, while writers update
// objects in every member and every manager of startEveryManager (file provider, kubeconfig-Secret provider, clusters
// added with AddConfig) reconciles them:
//
//   - the other members' write-to-reconcile latency stays within 2x of what it was before the fault, or under 1 s;
//   - every informer of the member's cluster delivers again within resumeBound of the API server being ready;
//   - every object reaches the reconcilers in its final state, and no manager stops.
func TestMemberKilled(t *testing.T) {
	managers := startEveryManager(t, rig.ManagerOptions{})
	_, stopWriters := startWriters(t, 1, members, managers...)

	setPhase(managers, "unloaded")
	hold(t, unloadedPhase)

	setPhase(managers, "outage")
	if err := r.Fleet.KillMemberAPIServer(victim); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	hold(t, outage)
	if err := r.Fleet.RestartMemberAPIServer(t.Context(), victim); err != nil {
		t.Fatal(err)
	}
	ready := time.Now()
	setPhase(managers, "recovery")
	for _, m := range managers {
		m.Observer.MarkResume(m.ClusterName(victim), ready)
	}
	figures.addf(t, "API server of %s down for %s (killed, restarted and ready again)", victim, ready.Sub(killed).Round(time.Millisecond))

	resumed := waitResumed(t, victim, managers...)
	hold(t, afterRestart)
	stopWriters()
	took := waitConverged(t, members, managers...)
	figures.addf(t, "final state of every object of every member seen by every manager %s after the writers stopped; 0 lost", took.Round(time.Millisecond))

	for _, m := range managers {
		checkHealthyLatency(t, m, "outage")
	}
	for _, m := range managers {
		if resumed[m] > resumeBound {
			t.Errorf("%s manager: %s resumed %s after its API server was ready; want at most %s", m.Provider, victim,
				resumed[m].Round(time.Millisecond), resumeBound)
		}
	}
}

func setPhase(managers []*rig.Manager, phase string) {
	for _, m := range managers {
		m.Observer.SetPhase(phase)
	}
}

// waitResumed waits until every kind of the member's cluster has delivered a write begun after the resume mark,
// in every manager, records the times and returns the longest per manager.
func waitResumed(t *testing.T, member string, managers ...*rig.Manager) map[*rig.Manager]time.Duration {
	t.Helper()
	out := map[*rig.Manager]time.Duration{}
	for _, m := range managers {
		name := m.ClusterName(member)
		eventually(t, resumeTimeout, fmt.Sprintf("%s manager resumes %s", m.Provider, member), func() bool {
			return len(m.Observer.Resumed(name)) == len(rig.Kinds)
		})
		kinds := m.Observer.Resumed(name)
		longest := time.Duration(0)
		for _, d := range kinds {
			longest = max(longest, d)
		}
		out[m] = longest
		figures.addf(t, "%s provider: %s resumed %s after the fault ended (ConfigMaps %s, Secrets %s)", m.Provider,
			member, longest.Round(time.Millisecond), kinds[rig.KindConfigMap].Round(time.Millisecond),
			kinds[rig.KindSecret].Round(time.Millisecond))
	}
	return out
}

// checkHealthyLatency compares the healthy members' write-to-reconcile latency during a phase with the unloaded
// phase: the p99 must stay within 2x of unloaded, or under 1 s.
func checkHealthyLatency(t *testing.T, m *rig.Manager, phase string) {
	t.Helper()
	names := make([]multicluster.ClusterName, 0, len(healthy))
	for _, member := range healthy {
		names = append(names, m.ClusterName(member))
	}
	before := rig.Summarize(m.Observer.Latencies("unloaded", names...))
	during := rig.Summarize(m.Observer.Latencies(phase, names...))
	figures.addf(t, "%s provider: other members' write-to-reconcile latency before: %s", m.Provider, before)
	figures.addf(t, "%s provider: other members' write-to-reconcile latency during %s: %s", m.Provider, phase, during)
	if before.N == 0 || during.N == 0 {
		t.Errorf("%s manager: no latency samples (before %d, during %d)", m.Provider, before.N, during.N)
		return
	}
	if during.P99 > 2*before.P99 && during.P99 >= time.Second {
		t.Errorf("%s manager: the other members' p99 latency went from %s to %s during %s; want within 2x or under 1s",
			m.Provider, before.P99, during.P99, phase)
	}
}
