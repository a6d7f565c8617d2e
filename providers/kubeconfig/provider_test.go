// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package kubeconfig_test

import (
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// measure polls cond every 5ms until it holds and returns how long since began that took, failing the test after
// shortTimeout.
func measure(t *testing.T, began time.Time, what string, cond func() bool) time.Duration {
	t.Helper()
	deadline := time.Now().Add(shortTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", shortTimeout, what)
		}
		select {
		case <-time.After(5 * time.Millisecond):
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		}
	}
	return time.Since(began)
}

// update applies change to the Secret ns/name on the host.
func update(t *testing.T, ns, name string, change func(*corev1.Secret)) {
	t.Helper()
	c := hostClient(t)
	secret := &corev1.Secret{}
	if err := c.Get(quietContext(t), client.ObjectKey{Namespace: ns, Name: name}, secret); err != nil {
		t.Fatal(err)
	}
	change(secret)
	if err := c.Update(quietContext(t), secret); err != nil {
		t.Fatal(err)
	}
}

// A Secret's whole life: created (a pre-existing object and one created right after are reconciled), touched
// without changing its kubeconfig (nothing happens), pointed at another member (replaced: events now come from the
// new member only), unlabelled (disengaged), labelled again (engaged), deleted (disengaged).
func TestSecretLifecycle(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "kc-life", mcenvtest.HostName, "member-0", "member-1")
	dumpOnFailure(t, ns, `"c1"`)
	harness.CreateConfigMaps(t, fleet, ns, "pre", "member-0", "member-1")
	f := startFleetController(t, kubeconfig.Options{Namespace: ns}, ns)
	hc := hostClient(t)
	engaged := func() bool { return slices.Equal(f.provider.ListClusters(), []multicluster.ClusterName{"c1"}) }
	disengaged := func() bool { return len(f.provider.ListClusters()) == 0 }

	// Created: engaged, and both a pre-existing object and one created right after are reconciled.
	began := time.Now()
	if err := hc.Create(quietContext(t), kubeconfigSecret(ns, "c1", memberKubeconfig(t, "member-0"))); err != nil {
		t.Fatal(err)
	}
	harness.CreateConfigMap(t, fleet, "member-0", ns, "post")
	createdToEngaged := measure(t, began, "c1 engaged", engaged)
	createdToReconciled := measure(t, began, "first reconcile in c1", func() bool { return f.rec.Has("c1/pre=member-0") })
	f.waitReconciled(t, "c1/post=member-0")
	event := waitEvent(t, ns, "c1", kubeconfig.ReasonEngaged)
	if !strings.Contains(event.Note, `"c1"`) || !strings.Contains(event.Note, ns+"/c1") {
		t.Errorf("engaged event %q does not name the cluster and the Secret", event.Note)
	}

	// Touched without changing the kubeconfig: the same cluster stays. The fence Secret, queued after the touch,
	// proves the touch was reconciled.
	first, err := f.provider.Get(t.Context(), "c1")
	if err != nil {
		t.Fatal(err)
	}
	update(t, ns, "c1", func(s *corev1.Secret) { s.Annotations = map[string]string{"touched": "yes"} })
	if err := hc.Create(quietContext(t), kubeconfigSecret(ns, "fence", memberKubeconfig(t, "member-0"))); err != nil {
		t.Fatal(err)
	}
	f.waitClusters(t, "c1", "fence")
	if again, err := f.provider.Get(t.Context(), "c1"); err != nil || again != first {
		t.Errorf("touching the Secret replaced the cluster (err %v)", err)
	}
	if err := hc.Delete(t.Context(), kubeconfigSecret(ns, "fence", nil)); err != nil {
		t.Fatal(err)
	}
	f.waitClusters(t, "c1")

	// Pointed at member-1: replaced. The new member's objects are reconciled, the old member's no longer.
	member1Host := harness.Config(t, fleet, "member-1").Host
	update(t, ns, "c1", func(s *corev1.Secret) {
		s.Data[kubeconfig.DefaultKubeconfigSecretKey] = memberKubeconfig(t, "member-1")
	})
	harness.Eventually(t, shortTimeout, "c1 replaced by member-1", func() bool {
		cl, err := f.mgr.GetCluster(t.Context(), "c1")
		return err == nil && cl.GetConfig().Host == member1Host && engaged()
	})
	f.waitReconciled(t, "c1/pre=member-1")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "stale")
	harness.CreateConfigMap(t, fleet, "member-1", ns, "after-replace")
	f.waitReconciled(t, "c1/after-replace=member-1")
	harness.Consistently(t, quiet, "no reconcile from the replaced member", func() bool {
		return !f.rec.Has("c1/stale=member-0")
	})

	// Label removed: disengaged like a deletion.
	began = time.Now()
	update(t, ns, "c1", func(s *corev1.Secret) { delete(s.Labels, kubeconfig.DefaultKubeconfigSecretLabel) })
	unlabelledToDisengaged := measure(t, began, "c1 disengaged after losing its label", disengaged)
	for _, err := range []error{getErr(f.provider.Get(t.Context(), "c1")), getErr(f.mgr.GetCluster(t.Context(), "c1"))} {
		if !errors.Is(err, multicluster.ErrClusterNotFound) {
			t.Errorf("getting c1 without its label: got %v, want ErrClusterNotFound", err)
		}
	}
	harness.CreateConfigMap(t, fleet, "member-1", ns, "while-unlabelled")
	harness.Consistently(t, quiet, "no reconcile while unlabelled", func() bool {
		return !f.rec.Has("c1/while-unlabelled=member-1")
	})

	// Labelled again: engaged again, and the object created meanwhile is reconciled.
	update(t, ns, "c1", func(s *corev1.Secret) { s.Labels = map[string]string{kubeconfig.DefaultKubeconfigSecretLabel: "x"} })
	f.waitClusters(t, "c1")
	f.waitReconciled(t, "c1/while-unlabelled=member-1")

	// Deleted: disengaged.
	began = time.Now()
	if err := hc.Delete(t.Context(), kubeconfigSecret(ns, "c1", nil)); err != nil {
		t.Fatal(err)
	}
	deletedToDisengaged := measure(t, began, "c1 disengaged after deletion", disengaged)
	if _, err := f.mgr.GetCluster(t.Context(), "c1"); !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Errorf("getting c1 after deletion: got %v, want ErrClusterNotFound", err)
	}
	t.Logf("latencies: Secret created -> engaged %s, -> first object reconciled %s; label removed -> disengaged %s; "+
		"Secret deleted -> disengaged %s", createdToEngaged.Round(time.Millisecond),
		createdToReconciled.Round(time.Millisecond), unlabelledToDisengaged.Round(time.Millisecond),
		deletedToDisengaged.Round(time.Millisecond))
}

func getErr[T any](_ T, err error) error { return err }

// Secrets that do not describe a usable cluster get a Warning Event naming the Secret and the key, are not
// retried in a loop, and do not affect the other clusters. A Secret that becomes invalid loses its cluster; one
// that becomes valid gets one. The namespace comes from POD_NAMESPACE, as Options.Namespace is empty.
func TestInvalidSecretsRecordEvents(t *testing.T) {
	ns := harness.UniqueName("kc-invalid")
	dumpOnFailure(t, ns)
	t.Setenv(kubeconfig.PodNamespaceEnv, ns)
	harness.CreateNamespace(t, fleet, ns, mcenvtest.HostName, "member-0")
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	f := startFleetController(t, kubeconfig.Options{}, ns)
	hc := hostClient(t)

	noKey := kubeconfigSecret(ns, "nokey", nil)
	noKey.Data = map[string][]byte{"config": memberKubeconfig(t, "member-0")}
	secrets := []*corev1.Secret{
		kubeconfigSecret(ns, "good", memberKubeconfig(t, "member-0")),
		noKey,
		kubeconfigSecret(ns, "empty", []byte{}),
		kubeconfigSecret(ns, "garbage", []byte("{{{ this is: not [ a kubeconfig")),
		kubeconfigSecret(ns, "noserver", []byte("apiVersion: v1\nkind: Config\n")),
	}
	for _, s := range secrets {
		if err := hc.Create(quietContext(t), s); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []struct{ secret, reason, message string }{
		{"nokey", kubeconfig.ReasonKubeconfigMissing, `Secret ` + ns + `/nokey has no key "kubeconfig"`},
		{"empty", kubeconfig.ReasonKubeconfigMissing, `Secret ` + ns + `/empty has an empty key "kubeconfig"`},
		{"garbage", kubeconfig.ReasonInvalidKubeconfig, `key "kubeconfig" of Secret ` + ns + `/garbage does not hold a valid kubeconfig`},
		{"noserver", kubeconfig.ReasonInvalidKubeconfig, `key "kubeconfig" of Secret ` + ns + `/noserver does not hold a valid kubeconfig`},
	} {
		event := waitEvent(t, ns, want.secret, want.reason)
		if event.Type != corev1.EventTypeWarning || !strings.Contains(event.Note, want.message) {
			t.Errorf("Secret %s: got %s event %q, want a Warning containing %q", want.secret, event.Type, event.Note, want.message)
		}
	}
	f.waitClusters(t, "good")
	f.waitReconciled(t, "good/obj=member-0")

	// No retry loop: after a fence Secret queued later is engaged, each Warning was recorded once, and stays so.
	if err := hc.Create(quietContext(t), kubeconfigSecret(ns, "fence", memberKubeconfig(t, "member-0"))); err != nil {
		t.Fatal(err)
	}
	f.waitClusters(t, "fence", "good")
	harness.Consistently(t, quiet, "each Warning recorded once", func() bool {
		for _, name := range []string{"nokey", "empty"} {
			if events := secretEvents(t, ns, name, kubeconfig.ReasonKubeconfigMissing); len(events) != 1 || events[0].Series != nil {
				return false
			}
		}
		return true
	})

	// Valid -> invalid: disengaged. Invalid -> valid: engaged.
	update(t, ns, "fence", func(s *corev1.Secret) { s.Data[kubeconfig.DefaultKubeconfigSecretKey] = []byte("nope: [") })
	f.waitClusters(t, "good")
	waitEvent(t, ns, "fence", kubeconfig.ReasonInvalidKubeconfig)
	update(t, ns, "garbage", func(s *corev1.Secret) {
		s.Data[kubeconfig.DefaultKubeconfigSecretKey] = memberKubeconfig(t, "member-0")
	})
	f.waitClusters(t, "garbage", "good")
	f.waitReconciled(t, "garbage/obj=member-0")
}

// closedServer returns the URL of a local port nothing listens on: connections to it are refused, so a cluster
// pointing there never syncs.
func closedServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "https://" + addr
}

// stallingProxy serves member's API through a TLS proxy that passes every request through with the member's admin
// credentials, except lists and watches of ConfigMaps across all namespaces, which it holds until the client gives up: a
// cluster behind it answers discovery but its cache of ConfigMaps never syncs, like a member whose API server is
// overloaded.
func stallingProxy(t *testing.T, member string) (server string, caData []byte) {
	t.Helper()
	cfg := harness.MemberProxy(t, fleet, member, func(w http.ResponseWriter, r *http.Request, upstream http.Handler) {
		// Both ways an informer fills its cache stall: a list, and a watch that streams the initial list
		// (sendInitialEvents, client-go's default since v0.35).
		if r.Method == http.MethodGet && r.URL.Path == "/api/v1/configmaps" {
			<-r.Context().Done()
			return
		}
		upstream.ServeHTTP(w, r)
	})
	return cfg.Host, cfg.CAData
}

// A cluster whose cache cannot sync delays no other Secret: with one reconcile at a time and a sync timeout of a
// minute, a Secret created after the stalled one is engaged within a fraction of a second while the stalled one
// is still syncing. Deleting the stalled one's Secret aborts its attempt at once.
func TestSlowClusterBlocksNoOther(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "kc-slow", mcenvtest.HostName, "member-0")
	dumpOnFailure(t, ns)
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	// With a field index on ConfigMaps, every cluster has an informer to sync before it is engaged.
	f := startFleetController(t, kubeconfig.Options{Namespace: ns, WaitCacheTimeout: time.Minute}, ns, withOwnerIndex)
	hc := hostClient(t)

	server, ca := stallingProxy(t, "member-0")
	stalled := kubeconfigSecret(ns, "stalled", harness.TokenKubeconfig(t, server, ca, "stalled-token"))
	if err := hc.Create(quietContext(t), stalled); err != nil {
		t.Fatal(err)
	}
	// The attempt is in flight once the cluster is gettable; it is not listed as engaged.
	harness.Eventually(t, shortTimeout, "stalled gettable", func() bool {
		return getErr(f.provider.Get(t.Context(), "stalled")) == nil
	})

	began := time.Now()
	if err := hc.Create(quietContext(t), kubeconfigSecret(ns, "alive", memberKubeconfig(t, "member-0"))); err != nil {
		t.Fatal(err)
	}
	aliveIn := measure(t, began, "alive engaged", func() bool { return slices.Equal(f.provider.ListClusters(), []multicluster.ClusterName{"alive"}) })
	t.Logf("Secret created -> engaged, beside a cluster whose cache is stalled: %s", aliveIn.Round(time.Millisecond))
	f.waitReconciled(t, "alive/obj=member-0")
	if getErr(f.provider.Get(t.Context(), "stalled")) != nil {
		t.Error("the stalled cluster's attempt ended before its sync timeout")
	}

	began = time.Now()
	if err := hc.Delete(t.Context(), stalled); err != nil {
		t.Fatal(err)
	}
	took := measure(t, began, "stalled forgotten", func() bool {
		return errors.Is(getErr(f.provider.Get(t.Context(), "stalled")), multicluster.ErrClusterNotFound)
	})
	t.Logf("Secret of a cluster still syncing deleted -> attempt aborted: %s", took.Round(time.Millisecond))
	f.waitClusters(t, "alive")
}

// A cluster whose cache does not sync in time is reported (Warning Event, naming the cluster) and retried; fixing
// the Secret engages the cluster at once, without waiting for the backoff.
func TestEngageFailureIsRetried(t *testing.T) {
	ns := harness.NewNamespace(t, fleet, "kc-retry", mcenvtest.HostName, "member-0")
	dumpOnFailure(t, ns)
	harness.CreateConfigMap(t, fleet, "member-0", ns, "obj")
	f := startFleetController(t, kubeconfig.Options{Namespace: ns, WaitCacheTimeout: 300 * time.Millisecond}, ns, withOwnerIndex)
	hc := hostClient(t)

	if err := hc.Create(quietContext(t), kubeconfigSecret(ns, "flaky", harness.TokenKubeconfig(t, closedServer(t), nil, "x"))); err != nil {
		t.Fatal(err)
	}
	event := waitEvent(t, ns, "flaky", kubeconfig.ReasonEngageFailed)
	if event.Type != corev1.EventTypeWarning || !strings.Contains(event.Note, `cluster "flaky"`) {
		t.Errorf("got %s event %q, want a Warning naming the cluster", event.Type, event.Note)
	}
	if len(f.provider.ListClusters()) != 0 {
		t.Errorf("ListClusters() = %v, want none", f.provider.ListClusters())
	}

	began := time.Now()
	update(t, ns, "flaky", func(s *corev1.Secret) {
		s.Data[kubeconfig.DefaultKubeconfigSecretKey] = memberKubeconfig(t, "member-0")
	})
	f.waitClusters(t, "flaky")
	f.waitReconciled(t, "flaky/obj=member-0")
	t.Logf("Secret fixed -> engaged: %s", time.Since(began).Round(time.Millisecond))
}

func TestSetupWithManagerErrors(t *testing.T) {
	p := kubeconfig.New(kubeconfig.Options{Namespace: "x", KubeconfigSecretLabel: "not a label!"})
	mgr := harness.NewManager(t, fleet.Host(), p, nil)
	if err := p.SetupWithManager(t.Context(), mgr); err == nil || !strings.Contains(err.Error(), "not a label!") {
		t.Errorf("invalid label: got %v", err)
	}
	if err := p.SetupWithManager(t.Context(), mgr); err == nil {
		t.Error("a second SetupWithManager succeeded")
	}
	if err := kubeconfig.New(kubeconfig.Options{}).SetupWithManager(t.Context(), nil); err == nil {
		t.Error("SetupWithManager with a nil manager succeeded")
	}
	if _, err := p.Get(t.Context(), "any"); !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Errorf("Get before setup: got %v", err)
	}
	if _, err := p.Reconcile(t.Context(), reconcileRequest("x", "any")); err == nil {
		t.Error("Reconcile before setup succeeded")
	}
}

func reconcileRequest(ns, name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
}
