// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package rig is the test rig of the fault suite and the soak of multicluster-runtime: a fleet of real control planes
(a host and members, each an etcd and a kube-apiserver of its own), managers that engage the members through the
file provider, the kubeconfig-Secret provider, the cluster-inventory-api provider, the clusters provider's
AddConfig and the out-of-tree example provider (examples/argocd), writers that keep updating
objects in the members, and an observer per manager that records what its reconcilers see, so that tests can measure
write-to-reconcile latency, the time a member takes to resume after a fault, and whether every cluster converges to
the final state of its objects.

Every log line of the process goes through a LogCapture, which searches it for the credentials the rig hands out
(client keys, bearer tokens, exec plugin output) as it is written.

Main entry points:

  - Start and Options: start the fleet, write the kubeconfig files and Secrets, build the credential plugin.
  - Rig.StartFileManager, Rig.StartSecretManager, Rig.StartProfileManager, Rig.StartConfigManager,
    Rig.StartArgoCDManager: a manager per provider, each with an Observer.
  - Writer: updates, deletes and recreates objects of one member at a steady pace.
  - Rig.Converged: compares an observer's last view of a member's objects with the member's actual state.
*/
package rig
