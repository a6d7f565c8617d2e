// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package namespaced

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// indexKey identifies a field index: the same kind in another form (typed, unstructured, metadata only) has an
// informer of its own, hence indexes of its own.
type indexKey struct {
	gvk   schema.GroupVersionKind
	form  string
	field string
}

// fieldIndexName is the name controller-runtime's cache gives the indexer of a field index
// (sigs.k8s.io/controller-runtime/pkg/cache/internal.FieldIndexName).
func fieldIndexName(field string) string {
	return "field:" + field
}

// IndexField registers a field index on the shared cache, once for all the namespace-scoped clusters of the host,
// present and future (they share the cache, whose index keys include the namespace, so List with MatchingFields
// through a namespace-scoped cluster's client or cache finds only its namespace's objects). It may be called
// before or after the shared cluster starts; on a running cache it waits for the informer of obj's kind to sync.
//
// Registering a field that is registered already, through this host, one of its clusters, or anyone else on the
// same informer (for example the host manager, when the shared cluster is the manager's own), is a no-op: the
// first registration wins, and there is no "indexer conflict" error. Extractors run on the shared cache's objects,
// which carry their real namespaces.
func (h *Host) IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
	gvk, err := apiutil.GVKForObject(obj, h.cluster.GetScheme())
	if err != nil {
		return fmt.Errorf("indexing field %q of %T on the shared cluster: %w", field, obj, err)
	}
	key := indexKey{gvk: gvk, form: objectForm(obj), field: field}

	h.indexMu.Lock()
	defer h.indexMu.Unlock()
	if _, done := h.indexes[key]; done {
		return nil
	}

	shared := h.cluster.GetCache()
	// Hold the informer's indexer lock, which Informer.AddIndexers takes too, across the check and the add.
	if informer, err := shared.GetInformer(ctx, obj, cache.BlockUntilSynced(false)); err == nil {
		mux := h.muxes.muxFor(informer)
		mux.indexersMu.Lock()
		defer mux.indexersMu.Unlock()
		if mux.hasIndexer(fieldIndexName(field)) {
			h.record(key)
			return nil
		}
	}
	if err := shared.IndexField(ctx, obj, field, extractValue); err != nil {
		return fmt.Errorf("indexing field %q of %T on the shared cluster: %w", field, obj, err)
	}
	h.record(key)
	return nil
}

func (h *Host) record(key indexKey) {
	if h.indexes == nil {
		h.indexes = map[indexKey]struct{}{}
	}
	h.indexes[key] = struct{}{}
}

// objectForm tells typed, unstructured and metadata-only objects apart.
func objectForm(obj runtime.Object) string {
	switch obj.(type) {
	case runtime.Unstructured:
		return "unstructured"
	case *metav1.PartialObjectMetadata:
		return "metadata"
	default:
		return "structured"
	}
}

// fieldIndexer is the field indexer of a virtual cluster: every index goes to the shared cache, once.
type fieldIndexer struct {
	host *Host
}

var _ client.FieldIndexer = fieldIndexer{}

func (f fieldIndexer) IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
	return f.host.IndexField(ctx, obj, field, extractValue)
}
