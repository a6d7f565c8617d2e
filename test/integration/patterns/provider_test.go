// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package patterns

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	clustersprovider "sigs.k8s.io/multicluster-runtime/providers/clusters"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// countingProvider is a ProviderRunnable that counts how often it is started.
type countingProvider struct {
	*clustersprovider.Provider
	starts atomic.Int32
}

func (p *countingProvider) Start(ctx context.Context, aware multicluster.Aware) error {
	p.starts.Add(1)
	return p.Provider.Start(ctx, aware)
}

// A ProviderRunnable is started by mgr.Start, exactly once, and engages its cluster; mgr.GetManager returns a
// manager scoped to that cluster whose client reads and writes that member (and not the host or another member),
// and an error matching ErrClusterNotFound for an unknown name.
func TestProviderStartedOnceAndScopedManager(t *testing.T) {
	const (
		ns   = "pat-provider"
		name = "patterns-counted"
	)
	createNamespace(t, ns, append([]string{host}, members...)...)

	provider := &countingProvider{Provider: clustersprovider.New()}
	if err := provider.Add(t.Context(), name, harness.NewCluster(t, fleet, "member-1")); err != nil {
		t.Fatal(err)
	}
	mgr := harness.NewManager(t, fleet.Host(), provider, nil)
	engaged := newEngageRecorder()
	if err := mgr.Add(engaged); err != nil {
		t.Fatal(err)
	}
	if n := provider.starts.Load(); n != 0 {
		t.Fatalf("provider started %d times before mgr.Start", n)
	}
	harness.StartManager(t, t.Context(), mgr)
	harness.Eventually(t, shortTimeout, "provider started", func() bool { return provider.starts.Load() > 0 })
	harness.Eventually(t, shortTimeout, "provider's cluster engaged", func() bool {
		_, live, _ := engaged.get(name)
		return live
	})
	harness.Consistently(t, quiet, "provider started exactly once", func() bool { return provider.starts.Load() == 1 })

	scoped, err := mgr.GetManager(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := scoped.GetConfig().Host, harness.Config(t, fleet, "member-1").Host; got != want {
		t.Fatalf("scoped manager's config points at %s, want member-1 at %s", got, want)
	}
	written := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "through-scoped"}, Data: map[string]string{"via": "scoped"}}
	if err := scoped.GetClient().Create(t.Context(), written); err != nil {
		t.Fatal(err)
	}
	objKey := client.ObjectKeyFromObject(written)
	got := &corev1.ConfigMap{}
	if err := harness.Client(t, fleet, "member-1").Get(t.Context(), objKey, got); err != nil || got.Data["via"] != "scoped" {
		t.Fatalf("object written through the scoped manager, read from member-1: %v, data %v", err, got.Data)
	}
	for _, other := range []string{host, "member-0", "member-2"} {
		if err := harness.Client(t, fleet, other).Get(t.Context(), objKey, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
			t.Fatalf("object written through the scoped manager, read from %s: got %v, want not found", other, err)
		}
	}
	createConfigMap(t, "member-1", ns, "direct", map[string]string{"via": "direct"})
	eventuallyNoError(t, shortTimeout, "scoped manager's (cached) client reads member-1", func() error {
		cm := &corev1.ConfigMap{}
		if err := scoped.GetClient().Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "direct"}, cm); err != nil {
			return err
		}
		if cm.Data["via"] != "direct" {
			return errors.New("unexpected data")
		}
		return nil
	})

	if _, err := mgr.GetManager(t.Context(), "patterns-unknown"); !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Fatalf("GetManager of an unknown cluster: got %v, want ErrClusterNotFound", err)
	}
}
