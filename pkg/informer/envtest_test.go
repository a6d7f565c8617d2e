// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package informer

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
)

// The tests of this file run the informer against a real API server: the host of a fleet without members.

var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	mcenvtest.RunWithFleet(m, &fleet, mcenvtest.Options{})
}

// timeout bounds every wait against the API server.
const timeout = time.Minute

// clientset returns a clientset of the host.
func clientset(t *testing.T) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(fleet.Host())
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// testNamespace creates a namespace for the test, deleted when it ends.
func testNamespace(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "informer-"}}
	ns, err := cs.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.WithoutCancel(t.Context()), ns.Name, metav1.DeleteOptions{})
	})
	return ns.Name
}

func configMap(ns, name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

// createConfigMaps creates ConfigMaps of the given names in ns.
func createConfigMaps(t *testing.T, cs kubernetes.Interface, ns string, names ...string) {
	t.Helper()
	for _, name := range names {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), configMap(ns, name), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAgainstAPIServer(t *testing.T) {
	cs := clientset(t)
	ns := testNamespace(t, cs)
	createConfigMaps(t, cs, ns, "a", "b", "c")
	lw := toolscache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "configmaps", ns, fields.Everything())
	s := New(lw, &corev1.ConfigMap{}, 0, toolscache.Indexers{})
	if err := s.SetTransform(func(obj any) (any, error) {
		if cm, ok := obj.(*corev1.ConfigMap); ok {
			cm.Annotations = map[string]string{"transformed": "yes"}
		}
		return obj, nil
	}); err != nil {
		t.Fatal(err)
	}
	before := newRecorder()
	regBefore, err := s.AddEventHandler(before)
	if err != nil {
		t.Fatal(err)
	}
	run(t, s)
	mcenvtest.Eventually(t, timeout, "the first registration synced", regBefore.HasSynced)
	if got := before.size(); got != 3 {
		t.Fatalf("the synced registration has %d objects, want 3", got)
	}
	after := newRecorder()
	regAfter, err := s.AddEventHandler(after)
	if err != nil {
		t.Fatal(err)
	}
	if !regAfter.HasSynced() || after.size() != 3 {
		t.Fatalf("a registration added after the sync: synced %v with %d objects", regAfter.HasSynced(), after.size())
	}

	createConfigMaps(t, cs, ns, "d")
	changed := configMap(ns, "a")
	changed.Data = map[string]string{"k": "v"}
	if _, err := cs.CoreV1().ConfigMaps(ns).Update(t.Context(), changed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().ConfigMaps(ns).Delete(t.Context(), "b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*recorder{before, after} {
		mcenvtest.Eventually(t, timeout, "the changes delivered", func() bool {
			return r.count(adds, ns+"/d") == 1 && r.count(updates, ns+"/a") == 1 && r.count(deletes, ns+"/b") == 1
		})
		r.check(t)
		for _, name := range []string{"a", "b", "c", "d"} {
			if got := r.count(adds, ns+"/"+name); got != 1 {
				t.Errorf("%s added %d times, want once", name, got)
			}
		}
	}
	for _, obj := range s.GetStore().List() {
		if obj.(*corev1.ConfigMap).Annotations["transformed"] != "yes" {
			t.Errorf("%s stored untransformed", obj.(*corev1.ConfigMap).Name)
		}
	}

	// A removed handler is called no more.
	if err := s.RemoveEventHandler(regAfter); err != nil {
		t.Fatal(err)
	}
	createConfigMaps(t, cs, ns, "e")
	mcenvtest.Eventually(t, timeout, "the add delivered", func() bool { return before.count(adds, ns+"/e") == 1 })
	if after.count(adds, ns+"/e") != 0 {
		t.Error("a removed handler was called")
	}
}

func TestRelistAfterExpiredWatch(t *testing.T) {
	cs := clientset(t)
	ns := testNamespace(t, cs)
	createConfigMaps(t, cs, ns, "kept", "gone")
	lw := newPausingListerWatcher(toolscache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "configmaps", ns,
		fields.Everything()))
	s := New(lw, &corev1.ConfigMap{}, 0, toolscache.Indexers{})
	r := newRecorder()
	reg, err := s.AddEventHandler(r)
	if err != nil {
		t.Fatal(err)
	}
	run(t, s)
	mcenvtest.Eventually(t, timeout, "the registration synced", reg.HasSynced)

	// While the informer cannot watch, one object is deleted and another created; its watch then resumes from a
	// resource version that has expired, and it lists again.
	lw.pause()
	if err := cs.CoreV1().ConfigMaps(ns).Delete(t.Context(), "gone", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	createConfigMaps(t, cs, ns, "new")
	lw.resume()

	mcenvtest.Eventually(t, timeout, "the relist delivered", func() bool {
		return r.count(deletes, ns+"/gone") == 1 && r.count(adds, ns+"/new") == 1
	})
	r.check(t)
	if r.count(tombstones, ns+"/gone") != 1 {
		t.Error("the delete found by the relist was not a DeletedFinalStateUnknown")
	}
	if got := r.count(adds, ns+"/kept"); got != 1 {
		t.Errorf("kept added %d times, want once", got)
	}
}

// pausingListerWatcher is a ListerWatcher that can be paused: pausing ends its watch, and holds back its list and
// watch calls until it resumes; the first watch after that that resumes from a resource version fails as expired
// (410 Gone), as when an API server has compacted that version meanwhile.
type pausingListerWatcher struct {
	lw toolscache.ListerWatcherWithContext

	mu      sync.Mutex
	resumed chan struct{} // closed unless paused
	expire  bool
	watches []watch.Interface
}

func newPausingListerWatcher(lw toolscache.ListerWatcher) *pausingListerWatcher {
	resumed := make(chan struct{})
	close(resumed)
	return &pausingListerWatcher{lw: toolscache.ToListerWatcherWithContext(lw), resumed: resumed}
}

func (p *pausingListerWatcher) pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resumed = make(chan struct{})
	p.expire = true
	for _, w := range p.watches {
		w.Stop()
	}
	p.watches = nil
}

func (p *pausingListerWatcher) resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.resumed)
}

// wait waits until p is not paused, and reports whether a resuming watch must fail as expired (only once).
func (p *pausingListerWatcher) wait(ctx context.Context, resuming bool) (expired bool, err error) {
	p.mu.Lock()
	resumed := p.resumed
	p.mu.Unlock()
	select {
	case <-resumed:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if resuming && p.expire {
		p.expire = false
		return true, nil
	}
	return false, nil
}

func (p *pausingListerWatcher) List(options metav1.ListOptions) (runtime.Object, error) {
	return p.ListWithContext(context.Background(), options)
}

func (p *pausingListerWatcher) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return p.WatchWithContext(context.Background(), options)
}

func (p *pausingListerWatcher) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	if _, err := p.wait(ctx, false); err != nil {
		return nil, err
	}
	return p.lw.ListWithContext(ctx, options)
}

func (p *pausingListerWatcher) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	resuming := options.SendInitialEvents == nil && options.ResourceVersion != "" && options.ResourceVersion != "0"
	expired, err := p.wait(ctx, resuming)
	if err != nil {
		return nil, err
	}
	if expired {
		return nil, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %s", options.ResourceVersion))
	}
	w, err := p.lw.WatchWithContext(ctx, options)
	if err == nil {
		p.mu.Lock()
		p.watches = append(p.watches, w)
		p.mu.Unlock()
	}
	return w, err
}
