// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package builder

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
)

// ForInput is the configuration of the For watch.
type ForInput struct {
	EngageOptions

	object           client.Object
	predicates       []predicate.Predicate
	objectProjection objectProjection
	err              error
}

// OwnsInput is the configuration of one Owns watch.
type OwnsInput struct {
	EngageOptions

	matchEveryOwner  bool
	object           client.Object
	predicates       []predicate.Predicate
	objectProjection objectProjection
}

// WatchesInput is the configuration of one Watches watch.
type WatchesInput[request mcreconcile.ClusterAware[request]] struct {
	EngageOptions

	object           client.Object
	handler          mchandler.TypedEventHandlerFunc[client.Object, request]
	predicates       []predicate.Predicate
	objectProjection objectProjection
}

func (w *WatchesInput[request]) setPredicates(predicates []predicate.Predicate) {
	w.predicates = append(w.predicates, predicates...)
}

func (w *WatchesInput[request]) setObjectProjection(projection objectProjection) {
	w.objectProjection = projection
}

func (w *WatchesInput[request]) setEngageOptions(opts EngageOptions) {
	w.EngageOptions = w.merge(opts)
}
