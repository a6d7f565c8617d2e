// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kind_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/kind"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fastPoll keeps the tests quick; the default is DefaultPollInterval.
const fastPoll = 100 * time.Millisecond

// A new kind cluster is engaged and reconciled under its kind name, a second one joins while the first runs, a
// cluster whose kubeconfig changes (deleted and created again, now on another API server) is replaced, and a
// deleted one is disengaged: no longer gettable and no longer reconciled.
func TestDiscovery(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "kind-discovery", "member-0", "member-1", "member-2")
	for _, member := range []string{"member-0", "member-1", "member-2"} {
		harness.CreateConfigMap(t, fleet, member, ns, "obj")
	}
	lister := newFakeLister()
	lister.set(t, "dev", "member-0")
	p := kind.New(kind.Options{Lister: lister, PollInterval: fastPoll, ClusterOptions: []cluster.Option{harness.InNamespace(ns)}})
	mgr, rec, _ := harness.StartRecordingManager(t, fleet.Host(), p, nil)

	harness.Eventually(t, 0, "dev reconciled", func() bool { return rec.Has(harness.Seen("dev", "obj", "member-0")) })

	lister.set(t, "staging", "member-1")
	harness.Eventually(t, 0, "staging reconciled", func() bool { return rec.Has(harness.Seen("staging", "obj", "member-1")) })

	lister.set(t, "staging", "member-2")
	harness.Eventually(t, 0, "staging replaced by a cluster on member-2", func() bool {
		return rec.Has(harness.Seen("staging", "obj", "member-2"))
	})

	lister.remove("dev")
	harness.Eventually(t, 0, "dev disengaged", func() bool {
		_, err := mgr.GetCluster(t.Context(), "dev")
		return errors.Is(err, multicluster.ErrClusterNotFound) && !slices.Contains(p.ClusterNames(), "dev")
	})
	harness.CreateConfigMaps(t, fleet, ns, "after", "member-0", "member-2")
	harness.Eventually(t, 0, "staging still reconciled", func() bool { return rec.Has(harness.Seen("staging", "after", "member-2")) })
	if rec.Has(harness.Seen("dev", "after", "member-0")) {
		t.Error("reconciled an object of dev after it was deleted")
	}
	if got := p.ClusterNames(); !slices.Equal(got, []multicluster.ClusterName{"staging"}) {
		t.Errorf("ClusterNames() = %v, want [staging]", got)
	}
}

// Only clusters whose name starts with Prefix are engaged; their names keep the prefix.
func TestPrefix(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "kind-prefix", "member-0", "member-1")
	harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0", "member-1")
	lister := newFakeLister()
	lister.set(t, "fleet-a", "member-0")
	lister.set(t, "other", "member-1")
	p := kind.New(kind.Options{Prefix: "fleet-", Lister: lister, PollInterval: fastPoll, ClusterOptions: []cluster.Option{harness.InNamespace(ns)}})
	_, rec, _ := harness.StartRecordingManager(t, fleet.Host(), p, nil)

	harness.Eventually(t, 0, "fleet-a reconciled", func() bool { return rec.Has(harness.Seen("fleet-a", "obj", "member-0")) })
	harness.Consistently(t, 2*time.Second, "other left alone", func() bool {
		return slices.Equal(p.ClusterNames(), []multicluster.ClusterName{"fleet-a"}) && !rec.Has(harness.Seen("other", "obj", "member-1"))
	})
}

// syncBuffer is a log sink's buffer that tests read while the provider writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.buf.WriteString(prefix + " " + args + "\n")
	}, funcr.Options{Verbosity: 1})
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Faults stay with their cluster: a failing listing is retried, a malformed kubeconfig and an unreachable API
// server are reported with the cluster's name (and no credential) and retried, and neither delays a healthy
// cluster. Once fixed, the broken cluster is engaged at a later poll.
func TestFaultsAreIsolatedAndRetried(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "kind-faults", "member-0", "member-1")
	harness.CreateConfigMaps(t, fleet, ns, "obj", "member-0", "member-1")
	const secret = "s3cr3t-token-never-logged"
	lister := newFakeLister()
	lister.setListErr(errors.New("cannot connect to the container runtime"))
	lister.set(t, "healthy", "member-0")
	lister.set(t, "malformed", "this is not a kubeconfig: [token: "+secret)
	lister.set(t, "unreachable", `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: `+secret+`}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`)
	logs := &syncBuffer{}
	p := kind.New(kind.Options{
		Lister:           lister,
		PollInterval:     fastPoll,
		WaitCacheTimeout: 2 * time.Second,
		ClusterOptions:   []cluster.Option{harness.InNamespace(ns)},
	})
	mgr, rec, _ := harness.StartRecordingManager(t, fleet.Host(), getOnly{p}, nil) // the test runs p itself
	ctx := logf.IntoContext(t.Context(), logs.logger())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx, mgr) }()

	harness.Eventually(t, 0, "listing failure reported", func() bool {
		return strings.Contains(logs.String(), "Cannot list kind clusters")
	})
	lister.setListErr(nil)
	harness.Eventually(t, 0, "healthy reconciled despite the broken clusters", func() bool {
		return rec.Has(harness.Seen("healthy", "obj", "member-0"))
	})
	harness.Eventually(t, 0, "malformed and unreachable reported by name", func() bool {
		out := logs.String()
		return strings.Contains(out, `"cluster"="malformed"`) && strings.Contains(out, `"cluster"="unreachable"`)
	})
	if rec.Has(harness.Seen("unreachable", "obj", "member-0")) || rec.Has(harness.Seen("malformed", "obj", "member-1")) {
		t.Error("reconciled an object of a broken cluster")
	}

	lister.set(t, "malformed", "member-1")
	harness.Eventually(t, 0, "malformed engaged once fixed", func() bool { return rec.Has(harness.Seen("malformed", "obj", "member-1")) })
	if strings.Contains(logs.String(), secret) {
		t.Errorf("a credential appeared in the logs:\n%s", logs.String())
	}
	select {
	case err := <-done:
		t.Fatalf("Run returned early: %v", err)
	default:
	}
}

// getOnly hides the provider's Start, so that the manager does not run discovery.
type getOnly struct{ p *kind.Provider }

func (g getOnly) Get(ctx context.Context, name multicluster.ClusterName) (cluster.Cluster, error) {
	return g.p.Get(ctx, name)
}

func (g getOnly) IndexField(ctx context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	return g.p.IndexField(ctx, obj, field, extract)
}
