// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package multi provides a provider that composes other providers under name prefixes, so that one manager can
reconcile clusters from several sources at once: kind clusters for development beside Cluster API workload
clusters, or two inventories during a migration.

The cluster "inner" of the provider added under the name "kind" is the cluster "kind#inner" of the composed
provider (the separator is Options.Separator, "#" by default). Every inner provider gets its own context, owned by
the multi provider, and an Aware that prefixes the names of the clusters it engages and ties each cluster's
lifetime to the inner provider's context. So RemoveProvider disengages every cluster of the removed provider,
whichever context that provider engaged them with.

	p := multi.New(multi.Options{})
	_ = p.AddProvider("kind", kindProvider)
	_ = p.AddProvider("capi", capiProvider)
	mgr, _ := mcmanager.New(cfg, p, mcmanager.Options{})
	// clusters are "kind#dev", "capi#prod-eu1", ...

Main entry points:

  - New and Options: build the composed provider.
  - Provider.AddProvider and Provider.RemoveProvider: change the set of inner providers, before or after Start.
  - Provider.Get and Provider.IndexField: route by prefix; field indexes reach every inner provider, including
    those added later, exactly once each.
*/
package multi
