// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package leases

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DeleteUnchanged deletes the Lease l, as the tracker saw it, only if it is still unchanged (its UID and
// resourceVersion), within timeout, and forgets it once it is gone. It reports whether it is gone: deleted now, or
// already. A Lease that changed meanwhile, or a failed request, is left for a later attempt.
func (t *Tracker) DeleteUnchanged(ctx context.Context, l *coordinationv1.Lease, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := t.cli.Delete(ctx, l, client.Preconditions{UID: &l.UID, ResourceVersion: &l.ResourceVersion})
	if err != nil && !apierrors.IsNotFound(err) {
		return false
	}
	t.Forget(l.Name)
	return true
}
