package namespace_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/namespace"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// eventLog records "<event> <namespace>/<name>" for the objects a handler receives.
type eventLog struct {
	mu     sync.Mutex
	events []string
}

func (l *eventLog) OnAdd(obj any, _ bool) { l.add("add", obj) }
func (l *eventLog) OnUpdate(_, obj any)   { l.add("update", obj) }
func (l *eventLog) OnDelete(obj any) {
	if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	l.add("delete", obj)
}

func (l *eventLog) add(event string, obj any) {
	o := obj.(client.Object)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fmt.Sprintf("%s %s/%s", event, o.GetNamespace(), o.GetName()))
}

func (l *eventLog) has(event string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Contains(l.events, event)
}

func (l *eventLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

func scopedInformer(t *testing.T, vc *namespace.NamespacedCluster, obj client.Object) *namespace.ScopedInformer {
	t.Helper()
	informer, err := vc.GetCache().GetInformer(t.Context(), obj)
	if err != nil {
		t.Fatal(err)
	}
	scoped, ok := informer.(*namespace.ScopedInformer)
	if !ok {
		t.Fatalf("GetInformer returned %T, want *namespace.ScopedInformer", informer)
	}
	return scoped
}

// A scoped informer's handlers see only their namespace's events, presented in namespace "default"; removing a
// handler stops its delivery and nobody else's; a virtual cluster cannot remove another's handler nor the shared
// informer; indexers can be added by several virtual clusters; a cluster-scoped kind's events reach every virtual
// cluster unchanged.
func TestScopedInformerIsolation(t *testing.T) {
	c := hostClient(t)
	a, b := uniqueName("inf-a"), uniqueName("inf-b")
	createNamespaces(t, a, b)
	createConfigMap(t, c, a, "existing", nil)
	p := namespace.New(startSharedCluster(t))
	startProvider(t, p, newEngageRecorder())
	vcA, vcB := virtualCluster(t, p, a), virtualCluster(t, p, b)
	infA, infB := scopedInformer(t, vcA, &corev1.ConfigMap{}), scopedInformer(t, vcB, &corev1.ConfigMap{})

	removedLog, keptLog, bLog := &eventLog{}, &eventLog{}, &eventLog{}
	removed, err := infA.AddEventHandler(removedLog)
	if err != nil {
		t.Fatal(err)
	}
	kindInformer, err := vcA.GetCache().GetInformerForKind(t.Context(), corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	if err != nil {
		t.Fatal(err)
	}
	kept, err := kindInformer.AddEventHandler(keptLog)
	if err != nil {
		t.Fatal(err)
	}
	bReg, err := infB.AddEventHandlerWithOptions(bLog, toolscache.HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, reg := range []toolscache.ResourceEventHandlerRegistration{removed, kept, bReg} {
		harness.Eventually(t, shortWait, "handler synced", reg.HasSynced)
	}
	if !removedLog.has("add default/existing") {
		t.Fatalf("the existing object was not replayed: %v", removedLog.all())
	}

	createConfigMap(t, c, a, "x", nil)
	createConfigMap(t, c, b, "y", nil)
	if err := c.Delete(t.Context(), cm(a, "x", nil)); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, shortWait, "a's events", func() bool { return keptLog.has("delete default/x") && removedLog.has("delete default/x") })
	harness.Eventually(t, shortWait, "b's events", func() bool { return bLog.has("add default/y") })
	for _, log := range []*eventLog{removedLog, keptLog} {
		for _, e := range log.all() {
			if e != "add default/existing" && e != "add default/x" && e != "delete default/x" {
				t.Fatalf("a's handler received %q", e)
			}
		}
	}
	if slices.ContainsFunc(bLog.all(), func(e string) bool { return e != "add default/y" }) {
		t.Fatalf("b's handler received other events: %v", bLog.all())
	}

	if err := infA.RemoveEventHandler(bReg); err == nil {
		t.Fatal("a virtual cluster removed another virtual cluster's handler")
	}
	if err := infA.RemoveEventHandler(removed); err != nil {
		t.Fatal(err)
	}
	if err := vcA.GetCache().RemoveInformer(t.Context(), &corev1.ConfigMap{}); err != nil {
		t.Fatal(err)
	}
	createConfigMap(t, c, a, "after", nil)
	createConfigMap(t, c, b, "after", nil)
	harness.Eventually(t, shortWait, "events after the removals", func() bool {
		return keptLog.has("add default/after") && bLog.has("add default/after")
	})
	if removedLog.has("add default/after") {
		t.Fatal("a removed handler received an event")
	}

	byOwner := toolscache.Indexers{"test-owner": func(obj any) ([]string, error) {
		return []string{obj.(client.Object).GetLabels()["owner"]}, nil
	}}
	for _, informer := range []*namespace.ScopedInformer{infA, infB, infA} {
		if err := informer.AddIndexers(byOwner); err != nil {
			t.Fatalf("adding the same indexers again: %v", err)
		}
	}

	// Cluster-scoped: Namespaces, as they are, in every virtual cluster.
	nsLog := &eventLog{}
	nsReg, err := scopedInformer(t, vcA, &corev1.Namespace{}).AddEventHandler(nsLog)
	if err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, shortWait, "namespace handler synced", nsReg.HasSynced)
	if !nsLog.has("add /"+b) || !nsLog.has("add /"+metav1.NamespaceSystem) {
		t.Fatalf("a virtual cluster's Namespace handler lacks the shared cluster's namespaces")
	}
}

// Virtual clusters cost no goroutine: with a manager and a controller watching ConfigMaps, 200 namespaces with a
// ConfigMap each, all engaged and reconciled, leave the goroutine count where it was, within a small tolerance;
// once they are deleted and disengaged, every goroutine started since is gone (goleak).
func TestGoroutinesDoNotGrowPerNamespace(t *testing.T) {
	const namespaces = 200
	// A per-namespace goroutine would add at least 200. The tolerance covers goroutines unrelated to the number of
	// namespaces that may be alive when counted: HTTP/2 connection handling, client-go rate limiter timers, the
	// test's own helpers.
	const tolerance = 20

	c := hostClient(t)
	shared := harness.NewCluster(t, fleet, mcenvtest.HostName)
	p := namespace.New(shared)
	mgr := harness.NewManager(t, fleet.Host(), p, nil)
	if err := mgr.GetLocalManager().Add(shared); err != nil {
		t.Fatal(err)
	}
	rec := harness.NewRecorder()
	err := mcbuilder.ControllerManagedBy(mgr).
		Named("ns-goroutines").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			rec.Add(req.ClusterName.String() + "/" + req.Namespace + "/" + req.Name)
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	// Warm up: the first virtual clusters start the shared informers, their shared registrations and the workers.
	warm := make([]string, 3)
	for i := range warm {
		warm[i] = uniqueName("gor-warm")
	}
	populate(t, c, warm)
	for _, name := range warm {
		harness.Eventually(t, shortWait, "warm-up reconcile", func() bool { return rec.Has(name + "/default/cm") })
	}
	baseline := settledGoroutines(t)
	ignore := goleakIgnoreCurrent()

	names := make([]string, namespaces)
	for i := range names {
		names[i] = fmt.Sprintf("gor-%03d-%s", i, uniqueName("x"))
	}
	populate(t, c, names)
	for _, name := range names {
		harness.Eventually(t, shortWait, "reconcile of "+name, func() bool { return rec.Has(name + "/default/cm") })
	}
	engaged := settledGoroutines(t)
	if engaged > baseline+tolerance {
		t.Fatalf("goroutines grew from %d to %d with %d more virtual clusters", baseline, engaged, namespaces)
	}
	t.Logf("goroutines: %d before, %d with %d more virtual clusters engaged (%+.3f per virtual cluster)",
		baseline, engaged, namespaces, float64(engaged-baseline)/namespaces)

	parallel(t, names, func(name string) {
		if err := c.DeleteAllOf(t.Context(), &corev1.ConfigMap{}, client.InNamespace(name)); err != nil {
			t.Error(err)
		}
		deleteNamespace(t, c, name)
	})
	harness.Eventually(t, shortWait, "all disengaged", func() bool {
		for _, name := range names {
			if _, err := p.Get(t.Context(), multicluster.ClusterName(name)); err == nil {
				return false
			}
		}
		return true
	})
	waitNoLeak(t, ignore)
}

// transientGoroutines are the functions of goroutines that run while a cluster is being engaged and end once its
// sources have synced.
var transientGoroutines = []string{
	"multicluster-runtime/pkg/source.(*clusterKind[...]).run(",
	"multicluster-runtime/pkg/controller.(*mcController[...]).runSource(",
	"multicluster-runtime/providers/namespace.(*Provider).engageWorker",
}

// settledGoroutines waits until no goroutine of an engagement in progress runs, and returns the goroutine count.
func settledGoroutines(t *testing.T) int {
	t.Helper()
	harness.Eventually(t, shortWait, "engagements settled", func() bool {
		buf := make([]byte, 1<<22)
		stacks := string(buf[:runtime.Stack(buf, true)])
		for _, f := range transientGoroutines {
			if strings.Contains(stacks, f) {
				return false
			}
		}
		return true
	})
	return runtime.NumGoroutine()
}

// populate creates the namespaces, each with a ConfigMap "cm", in parallel.
func populate(t *testing.T, c client.Client, names []string) {
	t.Helper()
	parallel(t, names, func(name string) {
		if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			t.Error(err)
			return
		}
		if err := c.Create(t.Context(), cm(name, "cm", map[string]string{"owner": name})); err != nil {
			t.Error(err)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
}

// parallel runs f for every name with a few workers and waits for all.
func parallel(t *testing.T, names []string, f func(string)) {
	t.Helper()
	work := make(chan string)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range work {
				f(name)
			}
		}()
	}
	for _, name := range names {
		work <- name
	}
	close(work)
	wg.Wait()
}
