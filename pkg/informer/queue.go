// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package informer

import (
	"fmt"

	clientgofeaturegate "k8s.io/client-go/features"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// queueKind is a kind of queue between an informer's reflector and its store.
type queueKind int

const (
	// atomicFIFO is a RealFIFO that queues a relist as one ReplacedAll delta and a resync as one SyncAll delta, and
	// passes on bookmarks.
	atomicFIFO queueKind = iota
	// realFIFO is a RealFIFO that compares a relist with the store (Replaced and Deleted deltas) and resyncs from
	// it (Sync deltas).
	realFIFO
	// deltaFIFO is a DeltaFIFO that compares a relist with the store and emits Replaced deltas.
	deltaFIFO
)

// queueKindOfGates returns the kind of queue client-go's SharedIndexInformer uses with the enabled feature gates:
// with InOrderInformers (GA and always on since client-go v0.36) a RealFIFO, atomic with AtomicFIFO (on by default
// since v0.36); otherwise a DeltaFIFO.
func queueKindOfGates() queueKind {
	gates := clientgofeaturegate.FeatureGates()
	switch {
	case !gates.Enabled(clientgofeaturegate.InOrderInformers):
		return deltaFIFO
	case gates.Enabled(clientgofeaturegate.AtomicFIFO):
		return atomicFIFO
	default:
		return realFIFO
	}
}

// newQueue returns a queue of the kind k for objects of objectType stored in store, built as client-go's
// SharedIndexInformer builds it, and the logger of that queue (which names it). transform, if any, is applied by
// the queue to every object it takes in. An atomic queue is unlocked while a delta is processed if the feature
// gate UnlockWhileProcessingFIFO is enabled (the default).
func newQueue(k queueKind, logger klog.Logger, objectType any, store toolscache.KeyListerGetter,
	transform toolscache.TransformFunc) (klog.Logger, toolscache.Queue) {
	if k == deltaFIFO {
		name := fmt.Sprintf("DeltaFIFO %T", objectType)
		fifo := toolscache.NewDeltaFIFOWithOptions(toolscache.DeltaFIFOOptions{
			Logger:                &logger,
			Name:                  name,
			KnownObjects:          store,
			EmitDeltaTypeReplaced: true,
			Transformer:           transform,
		})
		return klog.LoggerWithName(logger, name), fifo
	}
	opts := toolscache.RealFIFOOptions{
		Logger:      &logger,
		Name:        fmt.Sprintf("RealFIFO %T", objectType),
		KeyFunction: toolscache.MetaNamespaceKeyFunc,
		Transformer: transform,
	}
	if k == atomicFIFO {
		opts.AtomicEvents = true
		opts.UnlockWhileProcessing = clientgofeaturegate.FeatureGates().Enabled(clientgofeaturegate.UnlockWhileProcessingFIFO)
		opts.EmitDeltaTypeBookmark = true
	} else {
		opts.KnownObjects = store
	}
	return klog.LoggerWithName(logger, opts.Name), toolscache.NewRealFIFOWithOptions(opts)
}
