// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/healthz"

	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
)

// ClusterSyncReporter is implemented by cluster-aware runnables that know which engaged clusters they have not
// finished syncing. The controllers of pkg/controller implement it: a cluster is unsynced for a controller until
// every per-cluster source of that controller has synced its cache for the cluster.
type ClusterSyncReporter interface {
	// UnsyncedClusters returns the names of the engaged clusters that are not synced yet.
	UnsyncedClusters() []multicluster.ClusterName
}

// maxNamedUnsynced bounds how many cluster names a failing readiness check lists.
const maxNamedUnsynced = 10

// FleetReadyzCheck returns a readiness check for mgr.AddReadyzCheck that passes once every cluster engaged with the
// manager is synced by every cluster-aware runnable that reports it (ClusterSyncReporter), and fails, naming the
// clusters, while one is not. A cluster that joins later makes the check fail until it has synced; a cluster that
// cannot sync (unreachable, no RBAC) keeps it failing, so use this check where the process should only count as
// ready with its whole fleet, and rely on the multicluster_* metrics where a single bad member must not make the
// process unready. Controllers that do not run (a replica that is not the leader) report no clusters, so standby
// replicas are ready. Controllers report only the clusters they are engaged with, so with a sharded coordinator
// (WithCoordinator) the check counts only the clusters this replica owns.
func FleetReadyzCheck(mgr Manager) healthz.Checker {
	return func(_ *http.Request) error {
		m, ok := mgr.(*mcManager)
		if !ok {
			return fmt.Errorf("fleet readiness: %T is not a manager built by mcmanager.New", mgr)
		}
		m.mu.RLock()
		awares := slices.Clone(m.awares)
		m.mu.RUnlock()

		var unsynced []multicluster.ClusterName
		for _, aware := range awares {
			if reporter, ok := aware.(ClusterSyncReporter); ok {
				unsynced = append(unsynced, reporter.UnsyncedClusters()...)
			}
		}
		if len(unsynced) == 0 {
			return nil
		}
		slices.Sort(unsynced)
		unsynced = slices.Compact(unsynced)
		named := unsynced
		more := ""
		if len(named) > maxNamedUnsynced {
			more = fmt.Sprintf(" and %d more", len(named)-maxNamedUnsynced)
			named = named[:maxNamedUnsynced]
		}
		return fmt.Errorf("%d cluster(s) not synced yet: %s%s", len(unsynced), joinNames(named), more)
	}
}

// joinNames joins cluster names with ", ".
func joinNames(names []multicluster.ClusterName) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = n.String()
	}
	return strings.Join(s, ", ")
}
