// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package builder_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/config"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// As in controller-runtime's builder, the manager's GroupKindConcurrency for the group and kind of the For object
// sets how many reconciles of a controller run at once, before the manager's MaxConcurrentReconciles; a
// MaxConcurrentReconciles given with WithOptions comes before both. Each controller gets three ConfigMaps, whose
// reconciles block until all that may run at once do.
func TestGroupKindConcurrency(t *testing.T) {
	mgr := harness.NewManager(t, fleet.Host(), member0(t), func(o *mcmanager.Options) {
		o.Controller = config.Controller{MaxConcurrentReconciles: 1, GroupKindConcurrency: map[string]int{"ConfigMap": 2}}
	})
	tests := []struct {
		name    string
		options mccontroller.Options
		want    int32
	}{
		{name: "builder-gkc-from-manager", want: 2},
		{name: "builder-gkc-with-options", options: mccontroller.Options{MaxConcurrentReconciles: 3}, want: 3},
	}
	reconcilers := make([]*blockingReconciler, len(tests))
	for i, tt := range tests {
		reconcilers[i] = newBlockingReconciler(t)
		if err := mcbuilder.ControllerManagedBy(mgr).
			Named(tt.name).
			For(&corev1.ConfigMap{}).
			WithEventFilter(inNamespace(tt.name)).
			WithOptions(tt.options).
			Complete(reconcilers[i]); err != nil {
			t.Fatal(err)
		}
		createConfigMaps(t, "member-0", tt.name, "a", "b", "c")
	}
	harness.StartManager(t, t.Context(), mgr)

	for i, tt := range tests {
		r := reconcilers[i]
		harness.Eventually(t, 0, fmt.Sprintf("%s: %d reconciles at once", tt.name, tt.want), func() bool {
			return r.most.Load() >= tt.want
		})
		r.unblock()
		harness.Eventually(t, 0, tt.name+": every ConfigMap reconciled", func() bool { return r.reconciled.Load() >= 3 })
		if most := r.most.Load(); most != tt.want {
			t.Errorf("%s: %d reconciles ran at once, want %d", tt.name, most, tt.want)
		}
	}
}
