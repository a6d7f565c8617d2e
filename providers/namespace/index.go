package namespace

import (
	"context"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
)

// host is what all the virtual clusters of a provider share: the shared cluster, the multiplexers of its
// informers and the field indexes registered on its cache.
type host struct {
	cluster cluster.Cluster
	muxes   muxRegistry

	indexMu sync.Mutex
	indexes map[indexKey]struct{}
}

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

// indexField registers a field index on the shared cache unless it is registered already, by this provider or by
// anyone else on the same informer: the first registration of a field wins, and registering it again is a no-op
// instead of an "indexer conflict".
func (h *host) indexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
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
	// Hold the informer's indexer lock, which ScopedInformer.AddIndexers takes too, across the check and the add.
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

func (h *host) record(key indexKey) {
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
	host *host
}

var _ client.FieldIndexer = fieldIndexer{}

func (f fieldIndexer) IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
	return f.host.indexField(ctx, obj, field, extractValue)
}
