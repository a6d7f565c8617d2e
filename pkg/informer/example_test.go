// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package informer_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/cluster"

	"sigs.k8s.io/multicluster-runtime/pkg/informer"
)

// A cluster whose cache runs this package's informers: ClusterOption goes after the options that may choose
// another constructor, which then win.
func ExampleClusterOption() {
	cfg := &rest.Config{Host: "https://member.example.com"}
	cl, err := cluster.New(cfg, func(o *cluster.Options) { o.Cache.SyncPeriod = new(10 * time.Hour) },
		informer.ClusterOption())
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = cl // Engage it, e.g. through a provider, or run it with cl.Start.
}

// The same through controller-runtime's cache options, for a cache built on its own.
func ExampleNew() {
	_ = cache.Options{NewInformer: informer.New}

	// Or directly, as toolscache.NewSharedIndexInformer.
	cfg := &rest.Config{Host: "https://member.example.com"}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	lw := toolscache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "configmaps", "default", fields.Everything())
	inf := informer.New(lw, &corev1.ConfigMap{}, 0, toolscache.Indexers{})
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { fmt.Println("added", obj.(*corev1.ConfigMap).Name) },
	}); err != nil {
		fmt.Println(err)
	}
	// Run it with inf.RunWithContext(ctx).
}
