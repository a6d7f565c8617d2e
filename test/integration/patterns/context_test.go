// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package patterns

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mccontext "sigs.k8s.io/multicluster-runtime/pkg/context"
	mccontroller "sigs.k8s.io/multicluster-runtime/pkg/controller"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	"sigs.k8s.io/multicluster-runtime/test/integration/harness"
)

// logCapture is a logr sink that keeps every line as a decoded JSON object.
type logCapture struct {
	mu    sync.Mutex
	lines []map[string]any
}

func (c *logCapture) logger() logr.Logger {
	return funcr.NewJSON(func(obj string) {
		line := map[string]any{}
		if err := json.Unmarshal([]byte(obj), &line); err != nil {
			line = map[string]any{"unparsable": obj}
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.lines = append(c.lines, line)
	}, funcr.Options{})
}

// find returns the lines with the given message.
func (c *logCapture) find(msg string) []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []map[string]any
	for _, line := range c.lines {
		if line["msg"] == msg {
			out = append(out, line)
		}
	}
	return out
}

// clusterInContextReconciler is a plain single-cluster reconciler: it learns its cluster from the context only, reads
// the ConfigMap from that cluster and logs through the reconcile logger.
func clusterInContextReconciler(mgr mcmanager.Manager, rec *harness.Recorder, msg string) reconcile.Reconciler {
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		name, ok := mccontext.ClusterFrom(ctx)
		if !ok {
			return reconcile.Result{}, fmt.Errorf("no cluster in the context of %s", req)
		}
		cl, err := mgr.ClusterFromContext(ctx)
		if err != nil {
			return reconcile.Result{}, err
		}
		cm := &corev1.ConfigMap{}
		if err := cl.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		// Log first: the test waits for the record, then reads the log.
		log.FromContext(ctx).Info(msg, "origin", cm.Data["origin"])
		rec.Add(key(name, req.Namespace, req.Name) + "=" + cm.Data["origin"])
		return reconcile.Result{}, nil
	})
}

// mccontext.ReconcilerWithClusterInContext and mgr.ClusterFromContext in real reconciles: a single-cluster
// reconciler finds the cluster of each request in its context and reads the object from that cluster (each
// member's ConfigMap names its member). The reconcile logger carries the cluster name under "cluster", both with
// the manager's logger (mcmanager.Options.Logger) and with a controller's own logger (controller Options.Logger),
// which replaces the manager's for that controller.
func TestClusterInContextAndLogger(t *testing.T) {
	const ns = "pat-context"
	createNamespace(t, ns, members...)

	mgrLogs, ctrlLogs := &logCapture{}, &logCapture{}
	mgr := harness.NewManager(t, fleet.Host(), memberProvider(t, members...), func(o *mcmanager.Options) {
		o.Logger = mgrLogs.logger()
	})
	viaMgr, viaCtrl := harness.NewRecorder(), harness.NewRecorder()
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named("patterns-context-mgrlog").
		For(&corev1.ConfigMap{}).
		WithEventFilter(inNamespace(ns)).
		Complete(mccontext.ReconcilerWithClusterInContext(clusterInContextReconciler(mgr, viaMgr, "patterns-reconciled-mgrlog"))); err != nil {
		t.Fatal(err)
	}
	if err := mcbuilder.ControllerManagedBy(mgr).
		Named("patterns-context-ctrllog").
		For(&corev1.ConfigMap{}).
		WithEventFilter(inNamespace(ns)).
		WithOptions(mccontroller.Options{Logger: ctrlLogs.logger()}).
		Complete(mccontext.ReconcilerWithClusterInContext(clusterInContextReconciler(mgr, viaCtrl, "patterns-reconciled-ctrllog"))); err != nil {
		t.Fatal(err)
	}
	harness.StartManager(t, t.Context(), mgr)

	for _, name := range members {
		createConfigMap(t, name, ns, "origin", map[string]string{"origin": name})
	}
	for _, name := range members {
		k := key(multicluster.ClusterName(name), ns, "origin") + "=" + name
		for _, rec := range []*harness.Recorder{viaMgr, viaCtrl} {
			harness.Eventually(t, shortTimeout, "reconcile with the cluster from the context: "+k, func() bool { return rec.Has(k) })
		}
	}
	if len(viaMgr.Keys()) != len(members) || len(viaCtrl.Keys()) != len(members) {
		t.Fatalf("unexpected reconciles: %v and %v", viaMgr.Keys(), viaCtrl.Keys())
	}

	for _, tc := range []struct {
		logs       *logCapture
		msg, other string
	}{
		{mgrLogs, "patterns-reconciled-mgrlog", "patterns-reconciled-ctrllog"},
		{ctrlLogs, "patterns-reconciled-ctrllog", "patterns-reconciled-mgrlog"},
	} {
		lines := tc.logs.find(tc.msg)
		seen := map[string]bool{}
		for _, line := range lines {
			if line["cluster"] != line["origin"] {
				t.Errorf("%s: logged with cluster %v for the object of %v: %v", tc.msg, line["cluster"], line["origin"], line)
			}
			if c, ok := line["cluster"].(string); ok {
				seen[c] = true
			}
		}
		for _, name := range members {
			if !seen[name] {
				t.Errorf("%s: no log line with cluster %q among %v", tc.msg, name, lines)
			}
		}
		if n := len(tc.logs.find(tc.other)); n != 0 {
			t.Errorf("%d lines of %s went to the logger of the other controller", n, tc.other)
		}
	}
}
