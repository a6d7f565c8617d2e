// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package harness

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// The objects tests of providers work with: namespaces of their own, and ConfigMaps that say which control plane
// they were created on (data key MemberKey), reconciled by a controller that records where it read them from.

// MemberKey is the data key of a ConfigMap of CreateConfigMap that holds the name of the control plane it was
// created on.
const MemberKey = "member"

// NewNamespace creates a namespace on each of the named control planes of fleet (at least one), named base, a dash
// and a suffix the first control plane's API server chooses, and returns its name. Tests that run again (-count)
// get a new one.
func NewNamespace(t testing.TB, fleet *mcenvtest.Fleet, base string, controlPlanes ...string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: base + "-"}}
	if err := Client(t, fleet, controlPlanes[0]).Create(t.Context(), ns); err != nil {
		t.Fatalf("creating a namespace %s-* on %s: %v", base, controlPlanes[0], err)
	}
	CreateNamespace(t, fleet, ns.Name, controlPlanes[1:]...)
	return ns.Name
}

// CreateNamespace creates namespace ns on each of the named control planes of fleet; one that exists is fine.
func CreateNamespace(t testing.TB, fleet *mcenvtest.Fleet, ns string, controlPlanes ...string) {
	t.Helper()
	for _, name := range controlPlanes {
		err := Client(t, fleet, name).Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating namespace %s on %s: %v", ns, name, err)
		}
	}
}

// CreateConfigMap creates ConfigMap ns/name on the control plane controlPlane of fleet, with the control plane's
// name under MemberKey and keysAndValues (key, value, key, value, ...) in its data.
func CreateConfigMap(t testing.TB, fleet *mcenvtest.Fleet, controlPlane, ns, name string, keysAndValues ...string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{MemberKey: controlPlane}}
	for i := 0; i+1 < len(keysAndValues); i += 2 {
		cm.Data[keysAndValues[i]] = keysAndValues[i+1]
	}
	if err := Client(t, fleet, controlPlane).Create(t.Context(), cm); err != nil {
		t.Fatalf("creating ConfigMap %s/%s on %s: %v", ns, name, controlPlane, err)
	}
}

// CreateConfigMaps creates ConfigMap ns/name on each of the named control planes of fleet, as CreateConfigMap
// does.
func CreateConfigMaps(t testing.TB, fleet *mcenvtest.Fleet, ns, name string, controlPlanes ...string) {
	t.Helper()
	for _, cp := range controlPlanes {
		CreateConfigMap(t, fleet, cp, ns, name)
	}
}

// InNamespace restricts the cache of a cluster to namespace ns, so that tests sharing a fleet see only their own
// objects.
func InNamespace(ns string) cluster.Option {
	return func(o *cluster.Options) { o.Cache.DefaultNamespaces = map[string]cache.Config{ns: {}} }
}

// Seen is what the controller of RecordConfigMaps records when it reads ConfigMap name from cluster clusterName and
// finds it was created on member: "<cluster>/<name>=<member>".
func Seen(clusterName multicluster.ClusterName, name, member string) string {
	return clusterName.String() + "/" + name + "=" + member
}

// controllers counts the controllers RecordConfigMaps has built: their names must be unique in the process.
var controllers atomic.Int64

// RecordConfigMaps builds a controller of ConfigMaps on mgr, filtered by predicates, that reads every ConfigMap it
// reconciles back from its cluster and records Seen(cluster, name, data[MemberKey]) in the returned recorder.
func RecordConfigMaps(t testing.TB, mgr mcmanager.Manager, predicates ...predicate.Predicate) *Recorder {
	t.Helper()
	rec := NewRecorder()
	err := mcbuilder.ControllerManagedBy(mgr).
		Named(fmt.Sprintf("configmaps-%d", controllers.Add(1))).
		For(&corev1.ConfigMap{}).
		WithEventFilter(predicate.And(predicates...)).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return reconcile.Result{}, err
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			rec.Add(Seen(req.ClusterName, cm.Name, cm.Data[MemberKey]))
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatalf("building the ConfigMap controller: %v", err)
	}
	return rec
}

// LeakTimeout is how long EventuallyNoLeak waits for teardown.
const LeakTimeout = 30 * time.Second

// EventuallyNoLeak waits, at most LeakTimeout, for every goroutine that LeakOptions(ignore...) does not ignore to
// end (teardown is asynchronous: caches and informers stop after their contexts end), and returns goleak's report
// of those still running then, or nil.
func EventuallyNoLeak(t testing.TB, ignore ...goleak.Option) error {
	t.Helper()
	opts := LeakOptions(ignore...)
	deadline := time.Now().Add(LeakTimeout)
	err := goleak.Find(opts...)
	for err != nil && time.Now().Before(deadline) {
		select {
		case <-time.After(50 * time.Millisecond):
		case <-t.Context().Done():
			return err
		}
		err = goleak.Find(opts...)
	}
	return err
}

// StartRecordingManager builds a manager of the host at cfg for provider (NewManager, with opts), calls every setup
// function with it (a provider's SetupWithManager, say), adds the controller of RecordConfigMaps and runs the
// manager (StartManager). It returns the manager, the controller's recorder and the function that stops the
// manager, which also runs when the test ends.
func StartRecordingManager(t testing.TB, cfg *rest.Config, provider multicluster.Provider, opts func(*mcmanager.Options),
	setup ...func(mcmanager.Manager) error) (mcmanager.Manager, *Recorder, func()) {
	t.Helper()
	mgr := NewManager(t, cfg, provider, opts)
	for _, f := range setup {
		if err := f(mgr); err != nil {
			t.Fatalf("setting up the manager: %v", err)
		}
	}
	rec := RecordConfigMaps(t, mgr)
	return mgr, rec, StartManager(t, t.Context(), mgr)
}

// NewScheme returns a scheme with client-go's built-in types and those each of addToScheme adds.
func NewScheme(addToScheme ...func(*runtime.Scheme) error) *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	for _, add := range addToScheme {
		utilruntime.Must(add(s))
	}
	return s
}

// ClientFor returns a direct (uncached) client with scheme of the control plane reached with cfg, or fails the
// test.
func ClientFor(t testing.TB, cfg *rest.Config, scheme *runtime.Scheme) client.Client {
	t.Helper()
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatalf("client of %s: %v", cfg.Host, err)
	}
	return c
}

// names counts the names UniqueName has returned, per base.
var names = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// UniqueName returns base the first time it is called with base in this process, then base-1, base-2, ...: a name
// of a namespace (or another object) that no earlier run of a test (go test -count) used. NewNamespace creates
// namespaces of unique names itself; UniqueName is for names needed before their namespace is created.
func UniqueName(base string) string {
	names.Lock()
	defer names.Unlock()
	n := names.n[base]
	names.n[base]++
	if n == 0 {
		return base
	}
	return fmt.Sprintf("%s-%d", base, n)
}

// OfNamespace selects the objects of namespace ns, for RecordConfigMaps.
func OfNamespace(ns string) predicate.Predicate {
	return predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetNamespace() == ns })
}
