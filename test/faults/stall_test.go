// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package faults_test

import (
	"testing"
	"time"

	"sigs.k8s.io/multicluster-runtime/test/faults/rig"
)

const (
	// stall is how long a stopped (SIGSTOP) API server stays stopped: longer than every client timeout in play. A
	// silent watch is given up after the suite's HTTP/2 health check (5 s without a frame, then 5 s for a ping), its
	// reflector waits its backoff (up to 1.6 s) and tries again, and that request waits for its TLS handshake (10 s)
	// before it fails: about 22 s. The recovery probe times out after 2 s, the writers' requests after 5 s.
	stall = 30 * time.Second
	// stallResumeBound is the longest a stalled member may take, from its API server being continued, until every
	// informer of its cluster delivers writes again.
	stallResumeBound = 5 * time.Second
)

// A member's kube-apiserver stops answering (SIGSTOP: connections are accepted and never answered) for longer than
// every client timeout, then continues (SIGCONT), while writers update objects in every member:
//
//   - the other members' write-to-reconcile latency stays within 2x of what it was before, or under 1 s;
//   - every informer of the member's cluster delivers again within stallResumeBound of the API server continuing;
//   - every object reaches the reconcilers in its final state, and no manager stops.
func TestMemberStalled(t *testing.T) {
	managers := startEveryManager(t, rig.ManagerOptions{})
	_, stopWriters := startWriters(t, 2, members, managers...)

	setPhase(managers, "unloaded")
	hold(t, unloadedPhase)

	setPhase(managers, "stall")
	if err := r.Fleet.PauseMemberAPIServer(victim); err != nil {
		t.Fatal(err)
	}
	hold(t, stall)
	if err := r.Fleet.ResumeMemberAPIServer(victim); err != nil {
		t.Fatal(err)
	}
	continued := time.Now()
	setPhase(managers, "recovery")
	for _, m := range managers {
		m.Observer.MarkResume(m.ClusterName(victim), continued)
	}
	figures.addf(t, "API server of %s stopped (SIGSTOP) for %s, then continued", victim, stall)

	// The stall outlasted the client timeouts: the informers gave their silent watches up, and said so naming the
	// cluster.
	for _, m := range managers {
		if lines := r.Logs.Grep("watch ended with error", `"cluster"="`+m.ClusterName(victim).String()+`"`); len(lines) == 0 {
			t.Errorf("%s manager: no log line says that a watch of %s ended", m.Provider, victim)
		}
	}
	resumed := waitResumed(t, victim, managers...)
	hold(t, afterRestart)
	stopWriters()
	took := waitConverged(t, members, managers...)
	figures.addf(t, "final state of every object of every member seen by every manager %s after the writers stopped; 0 lost", took.Round(time.Millisecond))

	for _, m := range managers {
		checkHealthyLatency(t, m, "stall")
		if resumed[m] > stallResumeBound {
			t.Errorf("%s manager: %s resumed %s after its API server continued; want at most %s", m.Provider, victim,
				resumed[m].Round(time.Millisecond), stallResumeBound)
		}
	}
}
