// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package informer provides a lean toolscache.SharedIndexInformer that calls its event handlers synchronously, on
the goroutine that applies the watched changes to its store, instead of through client-go's shared processor.

client-go's SharedIndexInformer hands every notification to a processor goroutine, which relays it to two more
goroutines per event handler (with a ring buffer of 1024 notifications each) so that a slow handler never holds up
the informer or the other handlers. A controller-runtime handler only adds a request to a work queue, so that
machinery buys a cluster nothing but three goroutines and about 16 KiB of heap per informer and handler: in a fleet
of separately connected clusters, each with a cache of its own watching one kind, three of the twelve goroutines a
cluster runs.

The informer New builds is composed from client-go's public parts, the same ones its SharedIndexInformer uses: a
toolscache.Controller (the reflector, and the caller's goroutine popping its queue), the queue client-go's informer
picks for the enabled feature gates (a RealFIFO, emitting atomic replace and resync events by default in client-go
v0.37), and an indexer built by toolscache.NewIndexer. What differs is only how notifications reach handlers:

  - Each change is applied to the store and passed to every handler, in the order of registration, under one lock.
    A handler added while the informer runs first receives every object already in the store as
    OnAdd(obj, true), under that same lock, so it misses no change and sees none twice.
  - A handler therefore runs on the informer's goroutine: a slow handler delays the later events of this informer
    (and only of this one) for every handler. Handlers must return quickly, as controller-runtime's do (they add
    requests to a work queue), and must not add or remove event handlers of the same informer, which would
    deadlock.
  - A handler's registration has synced (HasSynced) as soon as the informer has: the informer's initial list has
    been delivered to it by then, since delivering is part of processing.

The queue's deltas are popped and processed one at a time (client-go's informer may apply up to a thousand
queued changes to its store at once, with the feature gate InOrderInformersBatchProcess, before notifying its
handlers of them in order); handlers see the same events in the same order either way.

Everything else is client-go's behaviour: resyncs at the default or requested period (delivered as
OnUpdate(obj, obj) to the handlers due for one), relists that report objects deleted meanwhile as
toolscache.DeletedFinalStateUnknown, transforms, watch error handlers, indexers added before or after the start,
and errors for what client-go refuses once the informer has started or stopped. A handler that panics is handled
as client-go handles it (utilruntime.HandleCrash: the process crashes unless utilruntime.ReallyCrash is false).

ClusterOption makes New the informer constructor of a cluster.Cluster's cache unless an earlier option chose one.
The providers of this repository apply it to every cluster they connect to separately, after the user's options.
*/
package informer
