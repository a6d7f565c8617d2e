// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package patterns

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// leaderElected is a replica of a leader-elected multi-cluster controller: its manager, the clusters engaged with
// it, what its reconciler reconciled and how often it reconciled while its manager was not elected.
type leaderElected struct {
	mgr         mcmanager.Manager
	engaged     *engageRecorder
	rec         *harness.Recorder
	beforeElect atomic.Int32
}

func newLeaderElected(t *testing.T, lease, controllerName, ns string, mcOpts ...mcmanager.Option) *leaderElected {
	t.Helper()
	r := &leaderElected{rec: harness.NewRecorder(), engaged: newEngageRecorder()}
	r.mgr = harness.NewManager(t, fleet.Host(), memberProvider(t, "member-0"), func(o *mcmanager.Options) {
		o.LeaderElection = true
		o.LeaderElectionID = lease
		o.LeaderElectionNamespace = "default"
		o.LeaderElectionReleaseOnCancel = true
		o.LeaseDuration = ptr.To(10 * time.Second)
		o.RenewDeadline = ptr.To(8 * time.Second)
		o.RetryPeriod = ptr.To(500 * time.Millisecond)
	}, mcOpts...)
	if err := mcbuilder.ControllerManagedBy(r.mgr).
		Named(controllerName).
		For(&corev1.ConfigMap{}).
		WithEventFilter(inNamespace(ns)).
		Complete(mcreconcile.Func(func(_ context.Context, req mcreconcile.Request) (reconcile.Result, error) {
			if !closed(r.mgr.Elected()) {
				r.beforeElect.Add(1)
			}
			r.rec.Add(key(req.ClusterName, req.Namespace, req.Name))
			return reconcile.Result{}, nil
		})); err != nil {
		t.Fatal(err)
	}
	if err := r.mgr.Add(r.engaged); err != nil {
		t.Fatal(err)
	}
	return r
}

// Leader election on the host: a multi-cluster controller reconciles only once its manager is elected. Of two
// managers sharing a lease, only the elected one reconciles (the other stays idle even for objects that exist and
// are created meanwhile); when the leader stops and releases the lease, the other is elected and takes over.
//
// By default the provider runs on the leader only, so the idle replica has not even engaged the member. With
// WithProviderLeaderElection(false) the idle replica has engaged it (its caches are warm) and the controller's own
// leader election is what keeps it idle.
func TestLeaderElectedControllers(t *testing.T) {
	for _, tc := range []struct {
		name               string
		providerEverywhere bool
	}{
		{"provider-on-leader", false},
		{"provider-everywhere", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := "pat-leader-" + tc.name
			lease := "patterns-leader-" + tc.name
			createNamespace(t, ns, "member-0")
			createConfigMap(t, "member-0", ns, "pre", nil)
			pre, during := key("member-0", ns, "pre"), key("member-0", ns, "during")

			var mcOpts []mcmanager.Option
			if tc.providerEverywhere {
				mcOpts = append(mcOpts, mcmanager.WithProviderLeaderElection(false))
			}
			a := newLeaderElected(t, lease, lease+"-a", ns, mcOpts...)
			b := newLeaderElected(t, lease, lease+"-b", ns, mcOpts...)

			stopA := harness.StartManager(t, t.Context(), a.mgr)
			harness.Eventually(t, shortTimeout, "a elected", func() bool { return closed(a.mgr.Elected()) })
			harness.Eventually(t, shortTimeout, "a reconciles", func() bool { return a.rec.Has(pre) })

			harness.StartManager(t, t.Context(), b.mgr)
			if tc.providerEverywhere {
				harness.Eventually(t, shortTimeout, "member-0 engaged with the idle replica", func() bool {
					_, live, _ := b.engaged.get("member-0")
					return live
				})
			}
			createConfigMap(t, "member-0", ns, "during", nil)
			harness.Eventually(t, shortTimeout, "a reconciles an object created while b runs", func() bool { return a.rec.Has(during) })
			// b has retried to take the lease several times meanwhile (every 500ms).
			harness.Consistently(t, 2*time.Second, "b neither elected nor reconciling", func() bool {
				return !closed(b.mgr.Elected()) && len(b.rec.Keys()) == 0
			})
			if _, _, n := b.engaged.get("member-0"); !tc.providerEverywhere && n != 0 {
				t.Fatalf("the provider of the idle replica engaged member-0 %d times", n)
			}

			stopA()
			harness.Eventually(t, shortTimeout, "b elected once a released the lease", func() bool { return closed(b.mgr.Elected()) })
			for _, k := range []string{pre, during} {
				harness.Eventually(t, shortTimeout, "b reconciles "+k, func() bool { return b.rec.Has(k) })
			}
			if n, m := a.beforeElect.Load(), b.beforeElect.Load(); n != 0 || m != 0 {
				t.Fatalf("reconciles before election: a %d, b %d", n, m)
			}
		})
	}
}
