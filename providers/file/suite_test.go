package file_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/file"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// fleet is shared by the tests of this package: a host and three members. Tests never share a namespace.
var fleet *mcenvtest.Fleet

func TestMain(m *testing.M) {
	harness.RunWithFleet(m, &fleet, mcenvtest.Options{Members: 3})
}

// unreachable names, in kubeconfig, a cluster whose API server does not exist.
const unreachable = "unreachable"

// kubeconfig returns a kubeconfig with a context per key of contexts, each reaching the member named by its value
// (or no server at all for unreachable) with the member's admin credentials. Cluster and user entries are named
// after the context.
func kubeconfig(t testing.TB, contexts map[string]string) []byte {
	t.Helper()
	out := clientcmdapi.NewConfig()
	for ctxName, member := range contexts {
		var (
			cl   *clientcmdapi.Cluster
			user *clientcmdapi.AuthInfo
		)
		if member == unreachable {
			cl = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1", InsecureSkipTLSVerify: true}
			user = &clientcmdapi.AuthInfo{Token: "unreachable"}
		} else {
			data, err := fleet.Kubeconfig(member)
			if err != nil {
				t.Fatal(err)
			}
			kc, err := clientcmd.Load(data)
			if err != nil {
				t.Fatal(err)
			}
			cl, user = kc.Clusters[member], kc.AuthInfos[member]
		}
		out.Clusters[ctxName] = cl
		out.AuthInfos[ctxName] = user
		out.Contexts[ctxName] = &clientcmdapi.Context{Cluster: ctxName, AuthInfo: ctxName}
	}
	data, err := clientcmd.Write(*out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// writeFile writes data to path in place, truncating it first, like os.WriteFile.
func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// writeAtomic writes data to a temporary file in path's directory, under a name no glob matches, and renames it
// over path, as editors and kubectl do.
func writeAtomic(t testing.TB, path string, data []byte) {
	t.Helper()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tmp.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := tmp.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		t.Fatal(err)
	}
}

// inNamespace makes every cluster's cache cover only namespace ns, so that tests sharing members see only their
// own objects.
func inNamespace(ns string) cluster.Option {
	return func(o *cluster.Options) { o.Cache.DefaultNamespaces = map[string]cache.Config{ns: {}} }
}

// namespaces counts the namespaces tests have created, so that each gets a fresh one even with -count > 1.
var namespaces atomic.Int64

// newNamespace creates a namespace named after base, and new to this test process, in each member.
func newNamespace(t testing.TB, base string, members ...string) string {
	t.Helper()
	ns := fmt.Sprintf("%s-%d", base, namespaces.Add(1))
	for _, m := range members {
		err := harness.Client(t, fleet, m).Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err != nil {
			t.Fatal(err)
		}
	}
	return ns
}

// createConfigMap creates ConfigMap ns/name in member, recording the member's name in its data.
func createConfigMap(t testing.TB, member, ns, name string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"member": member}}
	if err := harness.Client(t, fleet, member).Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
}

// seen is the key the test controller records for a reconcile of ConfigMap name, coming from member, under the
// cluster name clusterName.
func seen(clusterName multicluster.ClusterName, name, member string) string {
	return clusterName.String() + "|" + name + "=" + member
}

// clusterNames converts names to cluster names.
func clusterNames(names ...string) []multicluster.ClusterName {
	out := make([]multicluster.ClusterName, len(names))
	for i, n := range names {
		out[i] = multicluster.ClusterName(n)
	}
	return out
}

// controllers counts the controllers tests have built: controller names must be unique in the process.
var controllers atomic.Int64

// startController builds a manager on the fleet's host with provider p and a controller reconciling ConfigMaps,
// recording seen(cluster, name, member) for each, and starts it. The manager starts the provider.
func startController(t *testing.T, p *file.Provider) (mcmanager.Manager, *harness.Recorder, func()) {
	t.Helper()
	mgr := harness.NewManager(t, fleet.Host(), p, nil)
	rec := harness.NewRecorder()
	err := mcbuilder.ControllerManagedBy(mgr).
		Named(fmt.Sprintf("file-%s-%d", filepath.Base(t.Name()), controllers.Add(1))).
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			cl, err := mgr.GetCluster(ctx, req.ClusterName)
			if err != nil {
				return reconcile.Result{}, err
			}
			cm := &corev1.ConfigMap{}
			if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			rec.Add(seen(req.ClusterName, cm.Name, cm.Data["member"]))
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	stop := harness.StartManager(t, t.Context(), mgr)
	return mgr, rec, stop
}

// recorder is a multicluster.Aware that records which clusters are engaged, and when clusters are engaged and
// disengaged. It is safe for concurrent use.
type recorder struct {
	mu           sync.Mutex
	engaged      map[multicluster.ClusterName]cluster.Cluster
	engagedAt    map[multicluster.ClusterName]time.Time
	disengagedAt map[multicluster.ClusterName]time.Time
	engagements  int
	changed      chan struct{}
}

func newRecorder() *recorder {
	return &recorder{
		engaged:      map[multicluster.ClusterName]cluster.Cluster{},
		engagedAt:    map[multicluster.ClusterName]time.Time{},
		disengagedAt: map[multicluster.ClusterName]time.Time{},
		changed:      make(chan struct{}, 1),
	}
}

func (r *recorder) Engage(ctx context.Context, name multicluster.ClusterName, cl cluster.Cluster) error {
	now := time.Now()
	r.mu.Lock()
	r.engaged[name] = cl
	r.engagedAt[name] = now
	r.engagements++
	r.mu.Unlock()
	r.notify()
	context.AfterFunc(ctx, func() {
		now := time.Now()
		r.mu.Lock()
		if r.engaged[name] == cl {
			delete(r.engaged, name)
			r.disengagedAt[name] = now
		}
		r.mu.Unlock()
		r.notify()
	})
	return nil
}

func (r *recorder) notify() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// names returns the names of the engaged clusters, sorted.
func (r *recorder) names() []multicluster.ClusterName {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]multicluster.ClusterName, 0, len(r.engaged))
	for n := range r.engaged {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// cluster returns the cluster engaged under name, or nil.
func (r *recorder) cluster(name multicluster.ClusterName) cluster.Cluster {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.engaged[name]
}

// waitFor blocks until cond holds, re-checking whenever an engagement changes, and fails the test after timeout.
// It returns when cond first held, as precisely as the recorder's notifications allow.
func (r *recorder) waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-r.changed:
		case <-deadline.C:
			t.Fatalf("timed out after %s waiting for %s; engaged: %v", timeout, what, r.names())
		}
	}
}

// startProvider runs p.Start with aware until the test ends, and checks that Start then returns nil. The returned
// function stops it early and waits for it.
func startProvider(t *testing.T, p *file.Provider, aware multicluster.Aware) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- p.Start(ctx, aware) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Start returned %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Errorf("Start did not return within 30s of its context ending")
			}
		})
	}
	t.Cleanup(stop)
}

// errorRecorder is an ErrorHandler that records what it is handed.
type errorRecorder struct {
	mu   sync.Mutex
	errs []string
}

func (e *errorRecorder) handle(err error, msg string, keysAndValues ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.errs = append(e.errs, msg+": "+err.Error())
	_ = keysAndValues
}

// matching returns the recorded errors that contain every one of subs.
func (e *errorRecorder) matching(subs ...string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, msg := range e.errs {
		if containsAll(msg, subs...) {
			out = append(out, msg)
		}
	}
	return out
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
