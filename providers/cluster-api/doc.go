// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package capi provides a multicluster.Provider whose clusters are the workload clusters of Cluster API
(https://cluster-api.sigs.k8s.io): every ready Cluster object in the host (management) cluster becomes a cluster of
the fleet, named "<namespace>/<name>" of the Cluster object.

	provider := capi.New(capi.Options{})
	mgr, err := mcmanager.New(cfg, provider, manager.Options{})
	...
	err = provider.SetupWithManager(mgr)

By default the provider watches the Cluster API core type Cluster of API version cluster.x-k8s.io/v1beta2, in
every namespace. v1beta2, introduced in Cluster API v1.11, is the storage version of current releases (v1.14, whose
API types this module is built against); v1beta1, which earlier releases and the reference design used, is
deprecated, converted to v1beta2 by Cluster API itself, and on track to be no longer served from Cluster API v1.16.
The module depends only on Cluster API's API types (sigs.k8s.io/cluster-api/api), not on the main Cluster API
module, which is built on an older controller-runtime release and pulls in dependencies the provider does not need.
Options.ObjectToWatch watches another kind instead: another Cluster API version (as an unstructured object), or any
object that stands for a cluster and has a kubeconfig Secret.

An object is engaged once it is ready (Options.IsReady; by default DefaultIsReady: the control plane is initialized
or available, or the phase is Provisioned) and not being deleted. Its kubeconfig is read from the Secret
"<name>-kubeconfig", key "value", in the object's namespace, which Cluster API writes (Options.GetSecret can read
it elsewhere); Secrets are read from the API server, never cached by the provider, which watches only their
metadata. A new kubeconfig in that Secret (rotated credentials, moved endpoint) replaces the cluster: the new one
is engaged before the old one stops. An object that is deleted, gets a deletion timestamp or is no longer ready is
disengaged.

The provider is built on clusters.Engager: its controller tells the engager what each object's cluster should be,
and the engager builds (Options.NewCluster), starts, syncs, engages, replaces and stops the clusters in the
background, so a cluster whose API server is slow or unreachable never holds up the others. A missing Secret, a
malformed kubeconfig or one that Options.KubeconfigPolicy refuses is logged with the cluster's name, recorded as a
Warning Event on the object (reason KubeconfigUnavailable; events.k8s.io, reporting controller
Options.ControllerName) and retried by the controller; a cluster that does not sync or engage gets a Warning Event
(clusters.ReasonEngageFailed) and is retried on the engager's backoff (clusters.DefaultRetryDelay, doubling, at
most clusters.DefaultMaxRetryDelay); an engaged cluster gets a Normal Event (clusters.ReasonEngaged). Credentials
never appear in logs, events or errors. By default the policy refuses a kubeconfig with an exec credential plugin,
an auth-provider, a file of the controller's filesystem or insecure TLS, which whoever can write the Secret could
otherwise use to take the controller over; the kubeconfigs Cluster API writes use none of them.

RBAC on the host cluster (config/rbac/role.yaml, and the markers of rbac.go):

  - cluster.x-k8s.io clusters (or the kind of Options.ObjectToWatch): list, watch
  - core secrets: get, list, watch (for the kubeconfig Secrets and the metadata watch)
  - events.k8s.io events: create, patch

In each workload cluster the provider uses the kubeconfig Cluster API generated, which is cluster-admin; give it
a kubeconfig of narrower rights through Options.GetSecret where that matters.

Main entry points:

  - New and Options: build the provider; the defaults of every option are in Options.
  - Provider.SetupWithManager: register the provider's controller on the host manager, before it starts.
  - Provider.Start: started by the multi-cluster manager; engages clusters until its context ends.
  - Provider.ClusterNames (and ListClusters): the engaged clusters.
  - DefaultIsReady, DefaultGetSecret, DefaultNewCluster: the defaults, for options that build on them.
*/
package capi
