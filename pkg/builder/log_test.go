// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package builder

import (
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// captureLogger returns a logger that appends every line to lines.
func captureLogger(lines *[]string) logr.Logger {
	return funcr.New(func(prefix, args string) { *lines = append(*lines, args) }, funcr.Options{})
}

func TestKindLogConstructor(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}

	var lines []string
	logFor := kindLogConstructor[mcreconcile.Request](captureLogger(&lines), "replicaset", gvk)
	logFor(nil).Info("no request")
	logFor(&mcreconcile.Request{
		Request:     reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "rs"}},
		ClusterName: "eu-1",
	}).Info("request")

	var typedLines []string
	typedLogFor := kindLogConstructor[mcreconcile.WithCluster[string]](captureLogger(&typedLines), "replicaset", gvk)
	typedLogFor(&mcreconcile.WithCluster[string]{Request: "key", ClusterName: "eu-2"}).Info("typed request")

	tests := []struct {
		name    string
		line    string
		want    []string
		notWant []string
	}{
		{
			name:    "without a request",
			line:    lines[0],
			want:    []string{`"controller"="replicaset"`, `"controllerGroup"="apps"`, `"controllerKind"="ReplicaSet"`},
			notWant: []string{`"cluster"`},
		},
		{
			name: "with a request",
			line: lines[1],
			want: []string{
				`"controller"="replicaset"`, `"cluster"="eu-1"`, `"namespace"="ns"`, `"name"="rs"`,
				`"replicaset"={"name"="rs" "namespace"="ns"}`,
			},
		},
		{
			name: "with a custom request",
			line: typedLines[0],
			want: []string{`"controller"="replicaset"`, `"cluster"="eu-2"`, `"request"="cluster://eu-2/key"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, want := range tt.want {
				if !strings.Contains(tt.line, want) {
					t.Errorf("log line %s lacks %s", tt.line, want)
				}
			}
			for _, notWant := range tt.notWant {
				if strings.Contains(tt.line, notWant) {
					t.Errorf("log line %s has %s", tt.line, notWant)
				}
			}
		})
	}
}
