// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package lifecycle

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// An object deleted while a cluster's watch is down, and whose watch then cannot resume (the API server answers
// 410 Gone, as it does for a resource version it no longer has), is missing from the list the informer takes
// again: the informer reports it as a tombstone (cache.DeletedFinalStateUnknown), which reaches the controller's
// handler as a delete event carrying the deleted object's last state, with DeleteStateUnknown set and the name of
// its cluster, and the reconciler runs for it. The objects still there see no delete, and the cluster's watch
// goes on delivering afterwards.
//
// The member's API server is real; a proxy in front of it holds the watches and then answers them 410. A source
// that dropped tombstones, or handed them on without unwrapping them, fails it.
func TestTombstoneReachesHandlerAndReconciler(t *testing.T) {
	const ns = "lc-tombstone"
	ensureNamespace(t, "member-0", ns)
	createConfigMap(t, "member-0", ns, "doomed")
	createConfigMap(t, "member-0", ns, "kept")
	proxy := newExpiringProxy(t, "member-0")

	p := newTestProvider()
	mgr := newManager(t, p)
	log := &eventLog{}
	rec := harness.NewRecorder()
	ctrl, err := mccontroller.New("tombstone", mgr, mccontroller.Options{Reconciler: recordingReconciler(rec)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.MultiClusterWatch(log.configMapSource()); err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	if err := p.Add(t.Context(), "proxied", newObservedCluster(t, proxy.config(), ns, "proxied"), mgr); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "both objects reconciled", func() bool { return rec.Has("proxied/doomed") && rec.Has("proxied/kept") })
	reconciled := rec.Count("proxied/doomed")

	// The watch is cut and its resumption held, so the delete cannot arrive as a watch event. Released, the
	// informer lists again: at once if it streams its lists (client-go's default), after a 410 otherwise.
	proxy.hold()
	harness.Eventually(t, 0, "the informer waiting to resume its watch", func() bool { return proxy.waiting() > 0 })
	if err := harness.Client(t, fleet, "member-0").Delete(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "doomed"}}); err != nil {
		t.Fatal(err)
	}
	proxy.expire()
	harness.Eventually(t, 0, "a delete of doomed delivered", func() bool {
		return log.count(seenEvent{Cluster: "proxied", Type: "Delete", Name: "doomed"}) > 0
	})
	t.Logf("watches answered 410 before the informer listed again: %d", proxy.expired())
	for _, e := range log.all() {
		if e.Type != "Delete" {
			continue
		}
		if e.Name != "doomed" || e.Cluster != "proxied" || e.Instance != "proxied" {
			t.Errorf("unexpected delete event %+v", e)
		}
		if !e.StateUnknown {
			t.Errorf("delete of %s delivered without DeleteStateUnknown: it did not come from a tombstone", e.Name)
		}
	}
	harness.Eventually(t, 0, "doomed reconciled after its tombstone", func() bool { return rec.Count("proxied/doomed") > reconciled })

	proxy.pass()
	createConfigMap(t, "member-0", ns, "after")
	harness.Eventually(t, 0, "a later object reconciled: the watch goes on", func() bool { return rec.Has("proxied/after") })
	if n := log.count(seenEvent{Type: "Delete", Name: "kept"}); n != 0 {
		t.Errorf("kept got %d delete events", n)
	}
}

// expiringProxy serves a member's API over TLS, passing every request on with the member's admin credentials.
// Its watches can be held: the running ones are cut and new ones wait; and then expired: a watch that resumes from
// a resource version (one that does not ask for initial events) is answered 410 Gone with reason Expired, as an API
// server answers a watch from a resource version it no longer has, and one that lists again (sendInitialEvents,
// client-go's streaming list) is passed on. Either way the informer takes a new list of the member.
type expiringProxy struct {
	cfg *rest.Config // the proxy's, without credentials: the proxy adds the member's

	mu       sync.Mutex
	mode     proxyMode
	changed  chan struct{}              // closed when mode changes
	running  map[int]context.CancelFunc // the watches being passed on, by id
	nextID   int
	held     int // watches waiting now
	answered int // watches answered 410
}

type proxyMode int

const (
	passing proxyMode = iota
	holding
	expiring
)

func newExpiringProxy(t *testing.T, member string) *expiringProxy {
	t.Helper()
	p := &expiringProxy{changed: make(chan struct{}), running: map[int]context.CancelFunc{}}
	p.cfg = harness.MemberProxy(t, fleet, member, func(w http.ResponseWriter, r *http.Request, upstream http.Handler) {
		query := r.URL.Query()
		if query.Get("watch") != "true" && query.Get("watch") != "1" {
			upstream.ServeHTTP(w, r)
			return
		}
		relisting := query.Get("sendInitialEvents") == "true"
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		id, expire := p.admit(ctx, relisting, cancel)
		if expire {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusGone)
			_, _ = fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",`+
				`"message":"too old resource version","reason":"Expired","code":410}`)
			return
		}
		defer p.done(id)
		upstream.ServeHTTP(w, r.WithContext(ctx))
	})
	return p
}

// admit waits while watches are held, and then reports whether to answer the watch 410 (a resumption, while
// expiring), or else records it as running under the returned id.
func (p *expiringProxy) admit(ctx context.Context, relisting bool, cancel context.CancelFunc) (id int, expire bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.mode == holding {
		changed := p.changed
		p.held++
		p.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
		}
		p.mu.Lock()
		p.held--
		if ctx.Err() != nil {
			return 0, true
		}
	}
	if !relisting && p.mode == expiring {
		p.answered++
		return 0, true
	}
	p.nextID++
	p.running[p.nextID] = cancel
	return p.nextID, false
}

func (p *expiringProxy) done(id int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, id)
}

func (p *expiringProxy) setMode(mode proxyMode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = mode
	close(p.changed)
	p.changed = make(chan struct{})
	if mode == holding {
		for _, cancel := range p.running {
			cancel()
		}
	}
}

// hold cuts the running watches and holds their resumptions.
func (p *expiringProxy) hold() { p.setMode(holding) }

// expire answers the held and later resumptions 410.
func (p *expiringProxy) expire() { p.setMode(expiring) }

// pass passes every watch on again.
func (p *expiringProxy) pass() { p.setMode(passing) }

// waiting returns how many watches are held now.
func (p *expiringProxy) waiting() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

// expired returns how many watches were answered 410.
func (p *expiringProxy) expired() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.answered
}

// config returns a rest.Config of the proxy, without credentials: the proxy adds the member's.
func (p *expiringProxy) config() *rest.Config { return rest.CopyConfig(p.cfg) }
