// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package lifecycle

import (
	"context"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// Re-engaging a name with a new cluster.Cluster (AddOrReplace) replaces the old one atomically, both when the
// endpoint changes (another member) and when only the credentials rotate (another user of the same member):
//   - from the moment AddOrReplace returns, no event of the old instance reaches the controller, and the new
//     instance's events do;
//   - the manager and the provider return the new instance, which uses the new credentials;
//   - the old instance's Start returns;
//   - the old instance's teardown does not remove the new one: the name stays gettable and engaged.
//
// A replacement that leaves the old sources running delivers the old instance's events; a teardown that forgets
// the name, instead of the instance, makes the name unknown once the old context ends.
func TestReplaceCluster(t *testing.T) {
	const ns = "lc-replace"
	for _, member := range fleet.Members() {
		ensureNamespace(t, member, ns)
	}

	p := newTestProvider()
	mgr := newManager(t, p)
	log := &eventLog{}
	src := newCountingSource(log.configMapSource())
	rec := harness.NewRecorder()
	ctrl, err := mccontroller.New("replace", mgr, mccontroller.Options{Reconciler: recordingReconciler(rec)})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.MultiClusterWatch(src); err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	t.Run("endpoint", func(t *testing.T) {
		oldCl := memberCluster(t, "member-0", ns, "endpoint-old")
		newCl := memberCluster(t, "member-1", ns, "endpoint-new")
		replace(t, mgr, ctrl, p, log, src, "moved", oldCl, newCl, "member-0", "member-1")
	})

	t.Run("credentials", func(t *testing.T) {
		rotated, err := fleet.AddUser("member-2", envtest.User{Name: "lc-rotated", Groups: []string{"system:masters"}})
		if err != nil {
			t.Fatal(err)
		}
		oldCl := memberCluster(t, "member-2", ns, "credentials-old")
		newCl := newObservedCluster(t, rotated, ns, "credentials-new")
		replace(t, mgr, ctrl, p, log, src, "rotated", oldCl, newCl, "member-2", "member-2")
		if user := whoAmI(t, mgr, "rotated"); user != "lc-rotated" {
			t.Errorf("the cluster the manager returns authenticates as %q, want the rotated user", user)
		}
	})

	// The same through the manager by hand, with the old instance's context (and cache) still alive after the
	// replacement, as with a provider that tears the old instance down later: the controller itself stops the old
	// sources, and the old context ending afterwards does not disengage the name.
	t.Run("old context outlives the replacement", func(t *testing.T) {
		oldCl := memberCluster(t, "member-0", ns, "direct-old")
		newCl := memberCluster(t, "member-1", ns, "direct-new")
		for _, cl := range []*observedCluster{oldCl, newCl} {
			go func() {
				if err := cl.Start(t.Context()); err != nil {
					t.Errorf("cluster %s: %v", cl.id, err)
				}
			}()
			if !cl.GetCache().WaitForCacheSync(t.Context()) {
				t.Fatalf("cluster %s: cache did not sync", cl.id)
			}
		}
		createConfigMap(t, "member-0", ns, "direct-before")
		oldCtx, endOld := context.WithCancel(t.Context())
		defer endOld()
		if err := mgr.Engage(oldCtx, "direct", oldCl); err != nil {
			t.Fatal(err)
		}
		harness.Eventually(t, 0, "the old instance delivers", func() bool {
			return log.count(seenEvent{Instance: oldCl.id, Name: "direct-before"}) == 1
		})
		if err := mgr.Engage(t.Context(), "direct", newCl); err != nil {
			t.Fatal(err)
		}
		oldEvents := log.count(seenEvent{Instance: oldCl.id})
		if got := getCluster(t, mgr, "direct"); got != newCl {
			t.Fatalf("after the replacement GetCluster(direct) returned %s, want the new instance", instanceOf(got))
		}

		createConfigMap(t, "member-0", ns, "direct-after-old")
		createConfigMap(t, "member-1", ns, "direct-after-new")
		harness.Eventually(t, 0, "the old instance's cache, still running, sees its member's new object", func() bool {
			return oldCl.GetCache().Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "direct-after-old"}, &corev1.ConfigMap{}) == nil
		})
		harness.Eventually(t, 0, "the new instance delivers", func() bool {
			return log.count(seenEvent{Instance: newCl.id, Name: "direct-after-new"}) == 1
		})
		harness.Consistently(t, quietPeriod, "no event of the old instance once replaced", func() bool {
			return log.count(seenEvent{Instance: oldCl.id}) == oldEvents
		})

		endOld() // the old instance's lifetime ends after the replacement
		harness.Consistently(t, quietPeriod, "the name stays engaged with the new instance", func() bool {
			cl, err := mgr.GetCluster(t.Context(), "direct")
			return err == nil && cl == newCl
		})
		createConfigMap(t, "member-1", ns, "direct-last")
		harness.Eventually(t, 0, "the new instance still delivers after the old context ended", func() bool {
			return log.count(seenEvent{Instance: newCl.id, Name: "direct-last"}) == 1 && rec.Has("direct/direct-last")
		})
		stillEngagedWith(t, ctrl, src, "direct", newCl)
	})

	if n := src.count("moved"); n != 2 {
		t.Errorf("source built %d times for the replaced cluster, want 2 (old and new instance)", n)
	}
}

// replace engages oldCl under name, replaces it with newCl and checks the replacement. oldMember and newMember are
// the members the two instances reach (the same member when only credentials change).
func replace(t *testing.T, mgr mcmanager.Manager, ctrl mccontroller.Controller, p *testProvider, log *eventLog, src *countingSource,
	name string, oldCl, newCl *observedCluster, oldMember, newMember string) {
	t.Helper()
	prefix := name + "-"
	createConfigMap(t, oldMember, "lc-replace", prefix+"before")
	if err := p.AddOrReplace(t.Context(), multicluster.ClusterName(name), oldCl, mgr); err != nil {
		t.Fatal(err)
	}
	harness.Eventually(t, 0, "the old instance delivers", func() bool {
		return log.count(seenEvent{Instance: oldCl.id, Name: prefix + "before"}) == 1
	})

	if err := p.AddOrReplace(t.Context(), multicluster.ClusterName(name), newCl, mgr); err != nil {
		t.Fatal(err)
	}
	oldEvents := log.count(seenEvent{Instance: oldCl.id})

	if got := getCluster(t, mgr, name); got != newCl {
		t.Fatalf("after the replacement GetCluster(%s) returned %s, want the new instance", name, instanceOf(got))
	}
	oldCl.waitStopped(t, shortWait)
	if newCl.isStopped() {
		t.Fatal("the new instance stopped with the old one")
	}

	// New objects: in the old member (when it differs, the new instance does not see them) and in the new one.
	createConfigMap(t, oldMember, "lc-replace", prefix+"after-old")
	if newMember != oldMember {
		createConfigMap(t, newMember, "lc-replace", prefix+"after-new")
	}
	newName := prefix + "after-new"
	if newMember == oldMember {
		newName = prefix + "after-old"
	}
	harness.Eventually(t, 0, "the new instance delivers", func() bool {
		return log.count(seenEvent{Instance: newCl.id, Type: "Create", Name: newName}) == 1
	})
	harness.Consistently(t, quietPeriod, "no event of the old instance, the name still engaged with the new one", func() bool {
		cl, err := mgr.GetCluster(t.Context(), multicluster.ClusterName(name))
		if err != nil || cl != newCl {
			t.Logf("GetCluster(%s): %v, %v", name, instanceOf(cl), err)
			return false
		}
		fromProvider, err := p.Get(t.Context(), multicluster.ClusterName(name))
		if err != nil || fromProvider != newCl {
			t.Logf("provider Get(%s): %v, %v", name, instanceOf(fromProvider), err)
			return false
		}
		return log.count(seenEvent{Instance: oldCl.id}) == oldEvents
	})

	// Still engaged after the old instance's teardown has run: a later change is delivered and reconciled.
	createConfigMap(t, newMember, "lc-replace", prefix+"last")
	harness.Eventually(t, 0, "the new instance still delivers after the old one's teardown", func() bool {
		return log.count(seenEvent{Instance: newCl.id, Type: "Create", Name: prefix + "last"}) == 1
	})
	if n := log.count(seenEvent{Instance: newCl.id, Name: prefix + "after-old"}); newMember != oldMember && n != 0 {
		t.Errorf("the new instance delivered %d events of the old member", n)
	}
	stillEngagedWith(t, ctrl, src, name, newCl)
}

// stillEngagedWith checks that the controller still holds cl as the engaged instance of name: engaging it again
// is a no-op. A teardown of a replaced instance that forgot the name, not the instance, makes the controller build
// a second set of sources here.
func stillEngagedWith(t *testing.T, ctrl mccontroller.Controller, src *countingSource, name string, cl *observedCluster) {
	t.Helper()
	built := src.count(name)
	if err := ctrl.Engage(t.Context(), multicluster.ClusterName(name), cl); err != nil {
		t.Fatalf("engaging %s again with the controller: %v", name, err)
	}
	if n := src.count(name); n != built {
		t.Errorf("engaging the current instance of %s again built its sources again (%d times, was %d): the controller had forgotten it", name, n, built)
	}
}

func getCluster(t *testing.T, mgr mcmanager.Manager, name string) cluster.Cluster {
	t.Helper()
	cl, err := mgr.GetCluster(t.Context(), multicluster.ClusterName(name))
	if err != nil {
		t.Fatalf("GetCluster(%s): %v", name, err)
	}
	return cl
}

// whoAmI returns the user the named cluster's config authenticates as.
func whoAmI(t *testing.T, mgr mcmanager.Manager, name string) string {
	t.Helper()
	review := &authenticationv1.SelfSubjectReview{}
	if err := getCluster(t, mgr, name).GetClient().Create(t.Context(), review); err != nil {
		t.Fatalf("SelfSubjectReview in %s: %v", name, err)
	}
	return review.Status.UserInfo.Username
}
