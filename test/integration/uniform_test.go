package integration

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	clustersprovider "sigs.k8s.io/multicluster-runtime/providers/clusters"
)

// recorder records the requests a reconciler saw.
type recorder struct {
	mu   sync.Mutex
	seen map[string]int
}

func newRecorder() *recorder { return &recorder{seen: map[string]int{}} }

func (r *recorder) add(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen[key]++
}

func (r *recorder) has(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[key] > 0
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("timed out after %s waiting for %s", timeout, what)
	}
}

func TestUniformReconcilerOverThreeMembers(t *testing.T) {
	provider := clustersprovider.New()
	for _, name := range fleet.Members() {
		if err := provider.Add(t.Context(), name, newCluster(t, name)); err != nil {
			t.Fatal(err)
		}
	}
	mgr := newManager(t, provider)
	rec := newRecorder()
	err := mcbuilder.ControllerManagedBy(mgr).
		Named("uniform").
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
			rec.add(req.ClusterName + "/" + cm.Namespace + "/" + cm.Name + "=" + cm.Data["owner"])
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	startManager(t, mgr)

	for _, name := range fleet.Members() {
		c, err := client.New(memberConfig(t, name), client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "uniform", Namespace: "default"}, Data: map[string]string{"owner": name}}
		if err := c.Create(t.Context(), cm); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range fleet.Members() {
		eventually(t, 30*time.Second, "reconcile in "+name, func() bool { return rec.has(name + "/default/uniform=" + name) })
	}
}
