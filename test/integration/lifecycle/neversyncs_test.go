// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package lifecycle

import (
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"k8s.io/client-go/rest"

	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// A cluster whose cache never syncs, because its API server accepts connections and never answers (like a
// kube-apiserver stopped with SIGSTOP), is engaged without delaying anything, reported unsynced, and its source is
// restarted after each missed sync timeout; a healthy cluster beside it keeps being reconciled. When the cluster
// is removed, everything started for it ends: its Start returns, every goroutine started since it was added
// returns, every connection it opened is closed, and the controller no longer reports it.
//
// A retry loop that outlives the engagement, a source or cache left running, or a request that is not cancelled
// with its cluster fails it.
func TestNeverSyncingClusterLeavesNothingBehind(t *testing.T) {
	const ns = "lc-never-syncs"
	ensureNamespace(t, "member-0", ns)
	createConfigMap(t, "member-0", ns, "obj")
	silent := newSilentServer(t)

	p := newTestProvider()
	mgr := newManager(t, p)
	log := &eventLog{}
	src := newCountingSource(log.configMapSource())
	rec := harness.NewRecorder()
	ctrl, err := mccontroller.New("never-syncs", mgr, mccontroller.Options{
		Reconciler:       recordingReconciler(rec),
		CacheSyncTimeout: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.MultiClusterWatch(src); err != nil {
		t.Fatal(err)
	}
	reporter, ok := ctrl.(interface {
		UnsyncedClusters() []multicluster.ClusterName
	})
	if !ok {
		t.Fatal("the controller does not report its unsynced clusters")
	}
	harness.StartManager(t, t.Context(), mgr)

	if err := p.Add(t.Context(), "healthy", memberCluster(t, "member-0", ns, "healthy"), mgr); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "healthy/obj reconciled", func() bool { return rec.Has("healthy/obj") })
	ignore := goleak.IgnoreCurrent()

	cfg := rest.CopyConfig(harness.Config(t, fleet, "member-0"))
	cfg.Host = "https://" + silent.addr()
	stuck := newObservedCluster(t, cfg, ns, "stuck", fixedMapping)
	added := make(chan error, 1)
	go func() { added <- p.Add(t.Context(), "stuck", stuck, mgr) }()
	select {
	case err := <-added:
		if err != nil {
			t.Fatalf("adding the cluster whose API server never answers: %v", err)
		}
	case <-time.After(shortWait):
		t.Fatalf("adding the cluster whose API server never answers did not return within %s", shortWait)
	}

	harness.Eventually(t, 0, "stuck reported unsynced, its source restarted after a missed sync timeout", func() bool {
		return slices.Equal(reporter.UnsyncedClusters(), []multicluster.ClusterName{"stuck"}) && src.count("stuck") >= 2
	})
	if silent.accepted() == 0 {
		t.Fatal("the cluster never connected to its API server")
	}
	createConfigMap(t, "member-0", ns, "beside-stuck")
	harness.Eventually(t, 0, "healthy reconciled while stuck never syncs", func() bool { return rec.Has("healthy/beside-stuck") })

	p.Remove("stuck")
	stuck.waitStopped(t, shortWait)
	harness.Eventually(t, shortWait, "stuck no longer reported unsynced", func() bool { return len(reporter.UnsyncedClusters()) == 0 })
	// A connection still in its TLS handshake when the cluster stops is closed by the handshake timeout (client-go's
	// is 10 s).
	harness.Eventually(t, 2*shortWait, "every connection to the silent API server closed", func() bool { return silent.open() == 0 })
	waitNoLeak(t, ignore)
	restarts := src.count("stuck")
	harness.Consistently(t, quietPeriod, "no source of the removed cluster rebuilt", func() bool { return src.count("stuck") == restarts })

	createConfigMap(t, "member-0", ns, "after-stuck")
	harness.Eventually(t, 0, "healthy reconciled after stuck left", func() bool { return rec.Has("healthy/after-stuck") })
	if rec.Has("stuck/obj") {
		t.Error("reconciled an object of the cluster whose API server never answered")
	}
}

// silentServer is a loopback TCP server that accepts connections and never writes to them: a TLS handshake with it
// never completes. It counts the connections it accepted and those still open (not yet closed by the client).
type silentServer struct {
	listener net.Listener

	mu             sync.Mutex
	total, current int
	conns          []net.Conn
}

// newSilentServer starts a silent server; it and its connections are closed when the test ends.
func newSilentServer(t *testing.T) *silentServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &silentServer{listener: l}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.total++
			s.current++
			s.conns = append(s.conns, conn)
			s.mu.Unlock()
			wg.Go(func() {
				// Read (and drop) what the client sends until it closes the connection.
				_, _ = io.Copy(io.Discard, conn)
				s.mu.Lock()
				s.current--
				s.mu.Unlock()
			})
		}
	})
	t.Cleanup(func() {
		_ = l.Close()
		s.mu.Lock()
		for _, conn := range s.conns {
			_ = conn.Close()
		}
		s.mu.Unlock()
		wg.Wait()
	})
	return s
}

func (s *silentServer) addr() string { return s.listener.Addr().String() }

// accepted returns how many connections the server accepted.
func (s *silentServer) accepted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// open returns how many accepted connections the client has not closed.
func (s *silentServer) open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current
}
