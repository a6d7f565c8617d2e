// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package informer

import (
	"reflect"
	"testing"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
)

func TestClusterOption(t *testing.T) {
	same := func(a, b any) bool { return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() }

	var o cluster.Options
	ClusterOption()(&o)
	if o.Cache.NewInformer == nil || !same(o.Cache.NewInformer, New) {
		t.Error("ClusterOption did not set New")
	}

	o = cluster.Options{}
	o.Cache.NewInformer = toolscache.NewSharedIndexInformer
	ClusterOption()(&o)
	if !same(o.Cache.NewInformer, toolscache.NewSharedIndexInformer) {
		t.Error("ClusterOption replaced the constructor an earlier option set")
	}
}
