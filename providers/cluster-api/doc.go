/*
Package capi provides a multicluster.Provider whose clusters are the workload clusters of Cluster API
(https://cluster-api.sigs.k8s.io): every provisioned Cluster object in the host (management) cluster becomes a cluster
of the fleet, named "<namespace>/<name>" of the Cluster object.

The provider watches the Cluster API core type Cluster of API version cluster.x-k8s.io/v1beta2, the storage version
of Cluster API v1.12 (the release built on controller-runtime v0.22); v1beta1, which earlier releases and the
reference design used, is deprecated there and converted to v1beta2 by Cluster API itself. It watches every
namespace, through a controller registered on the host manager passed to New.

A Cluster is engaged once it is provisioned (see Provisioned: its control plane is initialized or its phase is
Provisioned) and not being deleted; its kubeconfig is read from the Secret "<name>-kubeconfig", key "value", in the
Cluster's namespace, which Cluster API writes (Options.GetSecret can read it elsewhere). A new kubeconfig in that
Secret (rotated credentials, moved endpoint) replaces the cluster: the new one is engaged before the old one stops.
A Cluster that is deleted, gets a deletion timestamp or is no longer provisioned is disengaged.

Engaging runs in the background, one goroutine per Cluster, so a Cluster whose API server is slow or unreachable
never holds up the others. A missing Secret, a malformed kubeconfig or a cluster that does not sync is logged with
the cluster's name, recorded as a Warning event on the Cluster object, and retried with backoff; credentials never
appear in logs, events or errors.

RBAC on the host cluster (see config/rbac/role.yaml):

  - cluster.x-k8s.io clusters: get, list, watch
  - core secrets: get, list, watch (the provider caches only the metadata of Secrets and reads the kubeconfig
    Secret itself when it needs it)
  - core events (and events.k8s.io events): create, patch

In each workload cluster the provider uses the kubeconfig Cluster API generated, which is cluster-admin; give it
a kubeconfig of narrower rights through Options.GetSecret where that matters.

Main entry points:

  - New and Options: build the provider and register its controller with the host manager.
  - Provider.Start: started by the multi-cluster manager; engages clusters until its context ends.
  - Provisioned: the default test of whether a Cluster is ready to be engaged.
*/
package capi
