// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package argocd_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/multicluster-runtime/examples/argocd"
	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

var (
	fleet *mcenvtest.Fleet
	// logs holds every log line of the process, at every verbosity, searched for credentials.
	logs logLines
)

func TestMain(m *testing.M) {
	logger := funcr.New(logs.add, funcr.Options{Verbosity: 10})
	logf.SetLogger(logger)
	klog.SetLogger(logger) // client-go's own log lines

	fleet = mcenvtest.NewFleet(mcenvtest.Options{Members: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	err := fleet.Start(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the fleet:", err)
		os.Exit(1)
	}
	code := m.Run()
	if err := fleet.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the fleet:", err)
	}
	os.Exit(code)
}

// run is a manager of the host with the provider, watching the cluster Secrets of a namespace of its own, and a
// controller that records through which cluster and API server it reconciled the ConfigMap "probe" of "default".
type run struct {
	ns       string
	host     client.Client
	provider *argocd.Provider
	mgr      mcmanager.Manager
	seen     *harness.Recorder
}

// start starts a run; the manager stops when the test ends, and no goroutine it started may outlive it.
func start(t *testing.T) *run {
	t.Helper()
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { noLeak(t, before) })
	r := &run{ns: fmt.Sprintf("argocd-%d", time.Now().UnixNano()), host: harness.Client(t, fleet, mcenvtest.HostName), seen: harness.NewRecorder()}
	if err := r.host.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: r.ns}}); err != nil {
		t.Fatal(err)
	}
	for _, member := range fleet.Members() {
		probe := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "probe"}}
		if err := harness.Client(t, fleet, member).Create(t.Context(), probe); client.IgnoreAlreadyExists(err) != nil {
			t.Fatal(err)
		}
	}
	r.provider = argocd.New(argocd.Options{Namespace: r.ns, ControllerName: r.ns})
	r.mgr = harness.NewManager(t, fleet.Host(), r.provider, func(o *mcmanager.Options) {
		o.Controller.SkipNameValidation = ptr.To(true)
		o.Cache.ByObject = map[client.Object]cache.ByObject{&corev1.Secret{}: argocd.SecretCache(r.ns)} // as the program does
	})
	if err := r.provider.SetupWithManager(r.mgr); err != nil {
		t.Fatal(err)
	}
	err := mcbuilder.ControllerManagedBy(r.mgr).
		Named("probe-" + r.ns).
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			cl, err := r.mgr.GetCluster(ctx, req.ClusterName)
			if err != nil || req.Name != "probe" {
				return ctrl.Result{}, client.IgnoreNotFound(err)
			}
			r.seen.Add(req.ClusterName.String() + " " + cl.GetConfig().Host)
			return ctrl.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), r.mgr)
	return r
}

// secret writes the cluster Secret name reaching member (created, or updated in place), or, with an empty member,
// the given data.
func (r *run) secret(t *testing.T, name, member string, data map[string][]byte) {
	t.Helper()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: name, Labels: map[string]string{argocd.SecretTypeLabel: argocd.SecretTypeCluster}}, Data: data}
	if member != "" {
		var err error
		if secret, err = argocd.ClusterSecret(r.ns, name, harness.Config(t, fleet, member)); err != nil {
			t.Fatal(err)
		}
	}
	err := r.host.Create(t.Context(), secret)
	if apierrors.IsAlreadyExists(err) {
		err = r.host.Update(t.Context(), secret)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// reconciled waits until the probe of member was reconciled through the cluster name.
func (r *run) reconciled(t *testing.T, name, member string) {
	t.Helper()
	host := harness.Config(t, fleet, member).Host
	harness.Eventually(t, 0, fmt.Sprintf("the probe of %s reconciled through cluster %s", member, name), func() bool {
		return r.seen.Has(name + " " + host)
	})
}

// gone waits until the provider no longer has a cluster name.
func (r *run) gone(t *testing.T, name string) {
	t.Helper()
	harness.Eventually(t, 0, "cluster "+name+" gone", func() bool {
		_, err := r.provider.Get(t.Context(), multicluster.ClusterName(name))
		return errors.Is(err, multicluster.ErrClusterNotFound)
	})
}

// A cluster Secret engages its cluster under the Secret's name; a change of server replaces the cluster; removing
// the label, or the Secret, disengages it; and nothing of any cluster outlives the manager.
func TestEngageChangeRemove(t *testing.T) {
	r := start(t)
	r.secret(t, "east", "member-0", nil)
	r.reconciled(t, "east", "member-0")
	if got := r.provider.ClusterNames(); len(got) != 1 || got[0] != "east" {
		t.Errorf("ClusterNames() = %v, want [east]", got)
	}

	r.secret(t, "east", "member-1", nil)
	r.reconciled(t, "east", "member-1")
	harness.Eventually(t, 0, "cluster east reaches member-1", func() bool {
		cl, err := r.mgr.GetCluster(t.Context(), "east")
		return err == nil && cl.GetConfig().Host == harness.Config(t, fleet, "member-1").Host
	})

	secret := &corev1.Secret{}
	if err := r.host.Get(t.Context(), client.ObjectKey{Namespace: r.ns, Name: "east"}, secret); err != nil {
		t.Fatal(err)
	}
	delete(secret.Labels, argocd.SecretTypeLabel)
	if err := r.host.Update(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	r.gone(t, "east")

	r.secret(t, "west", "member-0", nil)
	r.reconciled(t, "west", "member-0")
	if err := r.host.Delete(t.Context(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: "west"}}); err != nil {
		t.Fatal(err)
	}
	r.gone(t, "west")
	if got := r.provider.ClusterNames(); len(got) != 0 {
		t.Errorf("ClusterNames() = %v after every Secret went, want none", got)
	}
}

// Secrets that are no cluster config get a Warning Event and a log line naming the cluster, engage nothing and
// keep no other cluster from engaging; fixed, they engage. No credential reaches a log line or an Event.
func TestBadInput(t *testing.T) {
	r := start(t)
	bad := map[string]map[string][]byte{
		"no-server": {"config": []byte(`{"bearerToken": "` + token + `"}`)},
		"truncated": {"server": []byte("https://127.0.0.1:1"), "config": []byte(`{"bearerToken": "` + token + `"`)},
		"exec":      {"server": []byte("https://127.0.0.1:1"), "config": []byte(`{"execProviderConfig": {"env": {"TOKEN": "` + token + `"}}}`)},
	}
	for name, data := range bad {
		r.secret(t, name, "", data)
	}
	r.secret(t, "good", "member-0", nil)
	r.reconciled(t, "good", "member-0")
	for name := range bad {
		harness.Eventually(t, 0, "a Warning Event on Secret "+name, func() bool {
			return len(r.events(t, name, argocd.ReasonInvalidSecret)) > 0
		})
		harness.Eventually(t, 0, "a log line naming cluster "+name, func() bool {
			return strings.Contains(logs.String(), `"cluster"="`+name+`"`)
		})
		if _, err := r.provider.Get(t.Context(), multicluster.ClusterName(name)); !errors.Is(err, multicluster.ErrClusterNotFound) {
			t.Errorf("cluster %s: Get returned %v, want ErrClusterNotFound", name, err)
		}
	}

	r.secret(t, "truncated", "member-1", nil)
	r.reconciled(t, "truncated", "member-1")

	if strings.Contains(logs.String(), token) {
		t.Error("a log line shows the token of a Secret")
	}
	for _, e := range r.events(t, "", "") {
		if strings.Contains(e.Note, token) {
			t.Errorf("the Event %s/%s shows the token of a Secret: %s", e.Namespace, e.Name, e.Note)
		}
	}
}

// events returns the Events of the run's namespace about the Secret name with the reason ("" for any).
func (r *run) events(t *testing.T, name, reason string) []eventsv1.Event {
	t.Helper()
	var list eventsv1.EventList
	if err := r.host.List(t.Context(), &list, client.InNamespace(r.ns)); err != nil {
		t.Fatal(err)
	}
	var out []eventsv1.Event
	for _, e := range list.Items {
		if (name == "" || e.Regarding.Name == name) && (reason == "" || e.Reason == reason) {
			out = append(out, e)
		}
	}
	return out
}

// noLeak waits until no goroutine is left beyond those of before (and the shared ones harness.LeakOptions
// ignores), and fails the test with the leaked goroutines otherwise.
func noLeak(t *testing.T, before goleak.Option) {
	t.Helper()
	var leaked error
	// The test's context is done by the time cleanups run.
	err := wait.PollUntilContextTimeout(context.WithoutCancel(t.Context()), 100*time.Millisecond, harness.DefaultTimeout, true,
		func(context.Context) (bool, error) {
			leaked = goleak.Find(harness.LeakOptions(before)...)
			return leaked == nil, nil
		})
	if err != nil {
		t.Errorf("goroutines left after the manager stopped: %v", leaked)
	}
}

// logLines keeps every log line of the process, for tests to search.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(prefix, args string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, prefix+" "+args)
}

// String returns the lines so far, one a line.
func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}
