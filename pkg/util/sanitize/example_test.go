// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package sanitize_test

import (
	"fmt"

	"sigs.k8s.io/multicluster-runtime/pkg/util/sanitize"
)

// Cluster names from providers become names of Kubernetes objects, such as a Lease per cluster.
func ExampleDNS1123() {
	fmt.Println(sanitize.DNS1123("kind#Dev"))
	fmt.Println(sanitize.DNS1123("/etc/fleet/prod.kubeconfig+admin@prod"))
	fmt.Println(sanitize.DNS1123("already-valid"))
	// Output:
	// kind-dev
	// etc-fleet-prod.kubeconfig-admin-prod
	// already-valid
}
