// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package patterns

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	clustersprovider "sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// SkipNameValidation set on the manager's controller options reaches multi-cluster controllers: without it, a
// second controller of the same name is refused; with it, both are built and both reconcile.
func TestSkipNameValidationFromManagerOptions(t *testing.T) {
	const (
		ns   = "pat-names"
		name = "patterns-duplicate"
	)
	createNamespace(t, ns, "member-0")
	build := func(mgr mcmanager.Manager, rec *harness.Recorder) error {
		return mcbuilder.ControllerManagedBy(mgr).
			Named(name).
			For(&corev1.ConfigMap{}).
			WithEventFilter(inNamespace(ns)).
			Complete(recordingReconciler(rec))
	}

	strict := harness.NewManager(t, fleet.Host(), clustersprovider.New(), nil)
	if err := build(strict, harness.NewRecorder()); err != nil {
		t.Fatalf("first controller: %v", err)
	}
	err := build(strict, harness.NewRecorder())
	if err == nil || !strings.Contains(err.Error(), name) {
		t.Fatalf("second controller named %q without SkipNameValidation: got error %v, want a name conflict", name, err)
	}

	skip := harness.NewManager(t, fleet.Host(), memberProvider(t, "member-0"), func(o *mcmanager.Options) {
		o.Controller = config.Controller{SkipNameValidation: ptr.To(true)}
	})
	first, second := harness.NewRecorder(), harness.NewRecorder()
	if err := build(skip, first); err != nil {
		t.Fatalf("first controller with SkipNameValidation: %v", err)
	}
	if err := build(skip, second); err != nil {
		t.Fatalf("second controller with SkipNameValidation: %v", err)
	}
	harness.StartManager(t, t.Context(), skip)
	createConfigMap(t, "member-0", ns, "both", nil)
	for i, rec := range []*harness.Recorder{first, second} {
		harness.Eventually(t, shortTimeout, fmt.Sprintf("reconcile by controller %d", i+1), func() bool {
			return rec.Has(key("member-0", ns, "both"))
		})
	}
}

// MaxConcurrentReconciles set on the manager's controller options reaches multi-cluster controllers: with three
// workers, three blocking reconciles (one per member) run at the same time.
func TestMaxConcurrentReconcilesFromManagerOptions(t *testing.T) {
	const ns = "pat-concurrency"
	createNamespace(t, ns, members...)

	mgr := harness.NewManager(t, fleet.Host(), memberProvider(t, members...), func(o *mcmanager.Options) {
		o.Controller = config.Controller{MaxConcurrentReconciles: len(members)}
	})
	release := make(chan struct{})
	var releaseOnce atomicOnce
	t.Cleanup(func() { releaseOnce.do(func() { close(release) }) })
	var inFlight, maxInFlight atomic.Int32
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named("patterns-concurrency").
		For(&corev1.ConfigMap{}).
		WithEventFilter(inNamespace(ns)).
		Complete(mcreconcile.Func(func(ctx context.Context, _ mcreconcile.Request) (reconcile.Result, error) {
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			for {
				m := maxInFlight.Load()
				if n <= m || maxInFlight.CompareAndSwap(m, n) {
					break
				}
			}
			timer := time.NewTimer(shortTimeout)
			defer timer.Stop()
			select {
			case <-release:
			case <-ctx.Done():
			case <-timer.C:
			}
			return reconcile.Result{}, nil
		})); err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)
	for _, name := range members {
		createConfigMap(t, name, ns, "block", nil)
	}
	harness.Eventually(t, shortTimeout, "one blocked reconcile per member at the same time", func() bool {
		return maxInFlight.Load() == int32(len(members))
	})
	releaseOnce.do(func() { close(release) })
	harness.Eventually(t, shortTimeout, "reconciles released", func() bool { return inFlight.Load() == 0 })
}

// atomicOnce is a sync.Once usable from t.Cleanup and the test body alike.
type atomicOnce struct{ done atomic.Bool }

func (o *atomicOnce) do(f func()) {
	if o.done.CompareAndSwap(false, true) {
		f()
	}
}

// RecoverPanic set on the manager's controller options: a reconcile that panics does not bring the manager down,
// and the request is retried until it succeeds, in each member. (RecoverPanic is also controller-runtime's
// default; TestRecoverPanicDisabledCrashes shows that the option is honoured when false.)
func TestRecoverPanicFromManagerOptions(t *testing.T) {
	const ns = "pat-panic"
	createNamespace(t, ns, members...)

	mgr := harness.NewManager(t, fleet.Host(), memberProvider(t, members...), func(o *mcmanager.Options) {
		o.Controller = config.Controller{RecoverPanic: ptr.To(true)}
	})
	attempts := harness.NewRecorder()
	succeeded := harness.NewRecorder()
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named("patterns-panic").
		For(&corev1.ConfigMap{}).
		WithEventFilter(inNamespace(ns)).
		Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			k := key(req.ClusterName, req.Namespace, req.Name)
			attempts.Add(k)
			if attempts.Count(k) == 1 {
				panic("patterns: first reconcile of " + k)
			}
			succeeded.Add(k)
			return reconcile.Result{}, nil
		})); err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	check := func(names ...string) {
		t.Helper()
		for _, name := range names {
			k := key(multicluster.ClusterName(name), ns, "panicky")
			harness.Eventually(t, shortTimeout, "retry after the panic of "+k, func() bool { return succeeded.Has(k) })
			if n := attempts.Count(k); n < 2 {
				t.Fatalf("%s: %d attempts, want at least 2", k, n)
			}
		}
	}
	for _, name := range members[:2] {
		createConfigMap(t, name, ns, "panicky", nil)
	}
	check(members[:2]...)
	// The manager and the controller still run after the panics.
	createConfigMap(t, members[2], ns, "panicky", nil)
	check(members[2])
}

const (
	// panicChildEnv carries, to the child process of TestRecoverPanicDisabledCrashes, the path of a kubeconfig with
	// the contexts "host" and "member-0" of the parent's fleet.
	panicChildEnv = "PATTERNS_PANIC_CHILD_KUBECONFIG"
	panicChildNS  = "pat-panic-off"
	panicMessage  = "patterns-child-panic"
)

// RecoverPanic false on the manager's controller options reaches multi-cluster controllers: a panicking reconcile
// is not recovered and crashes the process, as in controller-runtime. The crash happens in a child process (this
// test binary running TestRecoverPanicDisabledChild) against this fleet.
func TestRecoverPanicDisabledCrashes(t *testing.T) {
	createNamespace(t, panicChildNS, "member-0")
	createConfigMap(t, "member-0", panicChildNS, "panicky", nil)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := fleet.WriteKubeconfig(kubeconfig, host, "member-0"); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRecoverPanicDisabledChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), panicChildEnv+"="+kubeconfig)
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 2 || !strings.Contains(string(out), "panic: "+panicMessage) {
		t.Fatalf("child process: got %v, want it to crash with an unrecovered panic (exit status 2); output:\n%s", err, tail(string(out), 4000))
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// TestRecoverPanicDisabledChild runs only as the child process of TestRecoverPanicDisabledCrashes.
func TestRecoverPanicDisabledChild(t *testing.T) {
	path := os.Getenv(panicChildEnv)
	if path == "" {
		t.Skip("runs only as the child process of TestRecoverPanicDisabledCrashes")
	}
	raw, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hostCfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, host, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	memberCfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, "member-0", &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	member, err := cluster.New(memberCfg)
	if err != nil {
		t.Fatal(err)
	}
	provider := clustersprovider.New()
	if err := provider.Add(t.Context(), "member-0", member); err != nil {
		t.Fatal(err)
	}
	mgr := harness.NewManager(t, hostCfg, provider, func(o *mcmanager.Options) {
		o.Controller = config.Controller{RecoverPanic: ptr.To(false)}
	})
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named("patterns-panic-off").
		For(&corev1.ConfigMap{}).
		WithEventFilter(inNamespace(panicChildNS)).
		Complete(mcreconcile.Func(func(context.Context, mcreconcile.Request) (reconcile.Result, error) {
			panic(panicMessage)
		})); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := mgr.Start(ctx); err != nil {
		t.Fatalf("manager: %v", err)
	}
	t.Fatal("the panicking reconcile did not crash the process within a minute")
}
