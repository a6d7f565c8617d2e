// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package source

import (
	"context"
	"fmt"

	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// eventHandler adapts a controller-runtime event handler of one cluster to an informer's ResourceEventHandler.
// Once its context has ended it drops every event, so nothing is enqueued for a disengaged cluster even before the
// registration is removed from the informer.
type eventHandler[object any, request comparable] struct {
	ctx         context.Context
	clusterName multicluster.ClusterName
	queue       workqueue.TypedRateLimitingInterface[request]
	handler     handler.TypedEventHandler[object, request]
	predicates  []predicate.TypedPredicate[object]
}

var _ toolscache.ResourceEventHandler = &eventHandler[any, string]{}

func (e *eventHandler[object, request]) OnAdd(obj any, isInInitialList bool) {
	if e.ctx.Err() != nil {
		return
	}
	o, ok := obj.(object)
	if !ok {
		e.unexpected("OnAdd", obj)
		return
	}
	evt := event.TypedCreateEvent[object]{Object: o, IsInInitialList: isInInitialList}
	for _, p := range e.predicates {
		if !p.Create(evt) {
			return
		}
	}
	e.handler.Create(e.ctx, evt, e.queue)
}

func (e *eventHandler[object, request]) OnUpdate(oldObj, newObj any) {
	if e.ctx.Err() != nil {
		return
	}
	oldO, ok := oldObj.(object)
	if !ok {
		e.unexpected("OnUpdate", oldObj)
		return
	}
	newO, ok := newObj.(object)
	if !ok {
		e.unexpected("OnUpdate", newObj)
		return
	}
	evt := event.TypedUpdateEvent[object]{ObjectOld: oldO, ObjectNew: newO}
	for _, p := range e.predicates {
		if !p.Update(evt) {
			return
		}
	}
	e.handler.Update(e.ctx, evt, e.queue)
}

func (e *eventHandler[object, request]) OnDelete(obj any) {
	if e.ctx.Err() != nil {
		return
	}
	evt := event.TypedDeleteEvent[object]{}
	if tombstone, isTombstone := obj.(toolscache.DeletedFinalStateUnknown); isTombstone {
		evt.DeleteStateUnknown = true
		obj = tombstone.Obj
	}
	o, ok := obj.(object)
	if !ok {
		e.unexpected("OnDelete", obj)
		return
	}
	evt.Object = o
	for _, p := range e.predicates {
		if !p.Delete(evt) {
			return
		}
	}
	e.handler.Delete(e.ctx, evt, e.queue)
}

func (e *eventHandler[object, request]) unexpected(callback string, obj any) {
	var want object
	log.Error(nil, "Informer delivered an object of an unexpected type", "cluster", e.clusterName,
		"callback", callback, "type", fmt.Sprintf("%T", obj), "expected", fmt.Sprintf("%T", want))
}
