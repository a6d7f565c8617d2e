// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package handler

import (
	"reflect"
	"sync/atomic"

	"k8s.io/client-go/util/workqueue"
)

// queueViews keeps the converted view of the last controller queue a handler was given, so that the view is built
// once per queue, not once per event: a handler of one cluster is called with the same controller queue for every
// event. The zero value is ready to use, and it is safe for concurrent use.
type queueViews[from, to comparable] struct {
	last atomic.Pointer[queueView[from, to]]
}

// queueView is a controller queue and its converted view. comparable is whether the queue's dynamic type can be
// compared with ==; a queue that cannot (a struct holding a slice, say) gets a new view for every event.
type queueView[from, to comparable] struct {
	queue      workqueue.TypedRateLimitingInterface[to]
	view       workqueue.TypedRateLimitingInterface[from]
	comparable bool
}

// of returns the view of q: the last one built if it was built for q, else a new one from build, which is kept.
func (v *queueViews[from, to]) of(q workqueue.TypedRateLimitingInterface[to], build func(workqueue.TypedRateLimitingInterface[to]) workqueue.TypedRateLimitingInterface[from]) workqueue.TypedRateLimitingInterface[from] {
	// Comparing interfaces panics only for equal dynamic types that are not comparable, and last.comparable says
	// whether last.queue's type is.
	if last := v.last.Load(); last != nil && last.comparable && last.queue == q {
		return last.view
	}
	view := build(q)
	v.last.Store(&queueView[from, to]{queue: q, view: view, comparable: q != nil && reflect.TypeOf(q).Comparable()})
	return view
}
