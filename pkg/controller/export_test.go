// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package controller

import mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

// EngagementsOf returns how many engagements the controller holds (ended or not) and how many reconciles of
// engaged clusters it tracks.
func EngagementsOf(c Controller) (engagements, reconciles int) {
	mc := c.(*mcController[mcreconcile.Request])
	mc.mu.Lock()
	defer mc.mu.Unlock()
	for _, eng := range mc.engagements.All() {
		reconciles += len(eng.Value.reconciles)
	}
	return mc.engagements.Len(), reconciles
}
