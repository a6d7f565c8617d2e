package kind_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fleet is shared by the tests of this package: a host and three members, standing in for kind clusters. Tests
// never share a namespace.
var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 3})
}

// fakeLister is a kind.ClusterLister whose clusters are fleet members: each kind cluster name maps to the
// kubeconfig of a member (or to any text, for broken clusters).
type fakeLister struct {
	mu          sync.Mutex
	kubeconfigs map[string]string
	listErr     error
	lists       int
}

func newFakeLister() *fakeLister { return &fakeLister{kubeconfigs: map[string]string{}} }

func (l *fakeLister) List() ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lists++
	if l.listErr != nil {
		return nil, l.listErr
	}
	names := make([]string, 0, len(l.kubeconfigs))
	for name := range l.kubeconfigs {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

func (l *fakeLister) KubeConfig(name string, internal bool) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if internal {
		return "", fmt.Errorf("internal kubeconfig of %q asked for: the provider runs on the host", name)
	}
	kc, ok := l.kubeconfigs[name]
	if !ok {
		return "", fmt.Errorf("no kind cluster %q", name)
	}
	return kc, nil
}

// set makes name a kind cluster reaching member (a fleet member's name) or, if member is not one, with member as
// its raw kubeconfig.
func (l *fakeLister) set(t testing.TB, name, member string) {
	t.Helper()
	kc := member
	if strings.HasPrefix(member, mcenvtest.DefaultMemberNamePrefix) {
		data, err := fleet.Kubeconfig(member)
		if err != nil {
			t.Fatal(err)
		}
		kc = string(data)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.kubeconfigs[name] = kc
}

func (l *fakeLister) remove(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.kubeconfigs, name)
}

func (l *fakeLister) setListErr(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.listErr = err
}

func (l *fakeLister) listCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lists
}

// newNamespace creates a namespace of a unique name in the given members and returns its name.
func newNamespace(t testing.TB, prefix string, members ...string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := harness.Client(t, fleet, members[0]).Create(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	for _, member := range members[1:] {
		if err := harness.Client(t, fleet, member).Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns.Name}}); err != nil {
			t.Fatal(err)
		}
	}
	return ns.Name
}

// inNamespace limits a cluster's cache to one namespace, so that tests sharing members do not see each other.
func inNamespace(ns string) cluster.Option {
	return func(o *cluster.Options) { o.Cache.DefaultNamespaces = map[string]cache.Config{ns: {}} }
}

func createConfigMap(t testing.TB, member, ns, name string) {
	t.Helper()
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Data:       map[string]string{"member": member},
	}
	if err := harness.Client(t, fleet, member).Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
}

// seen is the recorder key of a reconcile of ConfigMap name in cluster, read from member.
func seen(cluster multicluster.ClusterName, name, member string) string {
	return cluster.String() + "/" + name + "@" + member
}

// startController starts a manager of the fleet's host with the provider and a ConfigMap controller that records
// seen(cluster, name, member) for every ConfigMap it reads. It returns the manager, the recorder and a function that
// stops the manager (also called when the test ends).
func startController(t testing.TB, p multicluster.Provider) (mcmanager.Manager, *harness.Recorder, func()) {
	t.Helper()
	mgr := harness.NewManager(t, fleet.Host(), p, nil)
	rec := harness.NewRecorder()
	err := mcbuilder.ControllerManagedBy(mgr).
		Named(fmt.Sprintf("kind-%p", rec)).
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return reconcile.Result{}, err
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				return reconcile.Result{}, nil //nolint:nilerr // deleted: nothing to record
			}
			rec.Add(seen(req.ClusterName, req.Name, cm.Data["member"]))
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	stop := harness.StartManager(t, t.Context(), mgr)
	return mgr, rec, stop
}
