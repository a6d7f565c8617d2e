// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package patterns

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// The host cache that mcmanager.New builds reacts to its informers' sync instead of polling it (its waits are
// checked in pkg/manager against informers the tests control). Here it is a real cache of a real host, with a
// cache of all namespaces and one of a single namespace: a host controller still reconciles every object, an
// informer asked for once the manager runs has synced when it is returned, and an event handler added to it sees
// every object.
func TestHostCacheServesControllersAndInformersAsControllerRuntimes(t *testing.T) {
	const ns, objects = "pat-host-cache", 20
	createNamespace(t, ns, host)
	for i := range objects {
		createConfigMap(t, host, ns, fmt.Sprintf("cm-%02d", i), nil)
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("secret-%02d", i)}}
		if err := harness.Client(t, fleet, host).Create(t.Context(), secret); err != nil {
			t.Fatal(err)
		}
	}

	for _, tc := range []struct {
		name string
		opts func(*mcmanager.Options)
		// shared is whether the cache's informers are client-go's shared informers (a cache of several
		// namespaces has informers of its own).
		shared bool
	}{
		{"all namespaces", nil, true},
		{"one namespace", func(o *mcmanager.Options) { o.Cache.DefaultNamespaces = map[string]cache.Config{ns: {}} }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mgr := harness.NewManager(t, fleet.Host(), nil, tc.opts)
			var mu sync.Mutex
			reconciled := map[string]bool{}
			if err := builder.ControllerManagedBy(mgr.GetLocalManager()).
				Named("host-cache-"+map[bool]string{true: "all", false: "one"}[tc.shared]).
				For(&corev1.ConfigMap{}, builder.WithPredicates(inNamespace(ns))).
				Complete(reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
					mu.Lock()
					defer mu.Unlock()
					reconciled[req.Name] = true
					return reconcile.Result{}, nil
				})); err != nil {
				t.Fatal(err)
			}
			harness.StartManager(t, t.Context(), mgr)
			eventuallyNoError(t, time.Minute, "every ConfigMap reconciled by the host controller", func() error {
				mu.Lock()
				defer mu.Unlock()
				if len(reconciled) != objects {
					return fmt.Errorf("%d of %d reconciled", len(reconciled), objects)
				}
				return nil
			})

			// An informer not asked for until now.
			informer, err := mgr.GetLocalManager().GetCache().GetInformer(t.Context(), &corev1.Secret{})
			if err != nil {
				t.Fatal(err)
			}
			if !informer.HasSynced() {
				t.Fatal("GetInformer returned an informer that has not synced")
			}
			if _, ok := informer.(toolscache.SharedIndexInformer); ok != tc.shared {
				t.Errorf("GetInformer returned %T: a toolscache.SharedIndexInformer: %v, want %v", informer, ok, tc.shared)
			}
			list := &corev1.SecretList{}
			if err := mgr.GetLocalManager().GetCache().List(t.Context(), list, client.InNamespace(ns)); err != nil {
				t.Fatal(err)
			}
			if len(list.Items) != objects {
				t.Fatalf("the cache lists %d Secrets of the namespace, want %d", len(list.Items), objects)
			}
			var adds sync.Map
			registration, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
				if o, ok := obj.(client.Object); ok && o.GetNamespace() == ns {
					adds.Store(o.GetName(), true)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			eventuallyNoError(t, time.Minute, "the handler synced with every Secret of the namespace", func() error {
				n := 0
				adds.Range(func(any, any) bool { n++; return true })
				if !registration.HasSynced() || n != len(list.Items) {
					return fmt.Errorf("synced %v, %d of %d Secrets seen", registration.HasSynced(), n, len(list.Items))
				}
				return nil
			})
		})
	}
}
