// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

func (m *mcManager) GetFieldIndexer() client.FieldIndexer {
	return &fleetIndexer{m: m}
}

// fleetIndexer registers a field index on the host cluster and, through the provider, on every cluster of the
// fleet, current and future.
type fleetIndexer struct {
	m *mcManager
}

func (i *fleetIndexer) IndexField(ctx context.Context, obj client.Object, field string, extractValue client.IndexerFunc) error {
	if err := i.m.Manager.GetFieldIndexer().IndexField(ctx, obj, field, extractValue); err != nil {
		return fmt.Errorf("indexing field %q of %T on the host cluster: %w", field, obj, err)
	}
	if i.m.provider == nil {
		return nil
	}
	if err := i.m.provider.IndexField(ctx, obj, field, extractValue); err != nil {
		return fmt.Errorf("indexing field %q of %T on the fleet: %w", field, obj, err)
	}
	return nil
}
