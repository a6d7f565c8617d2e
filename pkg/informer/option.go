// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package informer

import (
	"sigs.k8s.io/controller-runtime/pkg/cluster"
)

// ClusterOption returns a cluster.Option that makes New the constructor of the informers of the cluster's cache
// (cluster.Options.Cache.NewInformer), unless an earlier option set one: append it after the user's options, so
// that theirs wins, and before options that wrap the constructor in place (the providers' recovery), so that they
// wrap this one. It is idempotent.
func ClusterOption() cluster.Option {
	return func(o *cluster.Options) {
		if o.Cache.NewInformer == nil {
			o.Cache.NewInformer = New
		}
	}
}
