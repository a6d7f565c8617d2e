// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package clusters_test

import (
	"context"
	"fmt"

	"sigs.k8s.io/multicluster-runtime/pkg/clusters"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// A cluster-aware component (here a custom coordinator's bookkeeping) keeps the clusters engaged with it in
// Engagements: the rules of Engage (no-op, replacement, forgetting a cluster once its context ends) are its.
func ExampleEngagements() {
	disengaged := make(chan multicluster.ClusterName, 1)
	engaged := clusters.NewEngagements(func(eng *clusters.Engagement[struct{}]) {
		disengaged <- eng.Name()
	})

	dev, prod := &engagedCluster{id: 1}, &engagedCluster{id: 2}
	devCtx, disengageDev := context.WithCancel(context.Background())
	if eng, _ := engaged.Engage(devCtx, "dev", dev); eng != nil {
		fmt.Println("engaged", eng.Name())
	}
	if eng, _ := engaged.Engage(devCtx, "dev", dev); eng == nil {
		fmt.Println("dev again: nothing to do")
	}
	engaged.Engage(context.Background(), "prod", prod)
	fmt.Println(engaged.Names())

	disengageDev()
	fmt.Println("disengaged", <-disengaged)
	fmt.Println(engaged.Names())
	// Output:
	// engaged dev
	// dev again: nothing to do
	// [dev prod]
	// disengaged dev
	// [prod]
}
