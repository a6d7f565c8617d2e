// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package clusterinventoryapi provides a multicluster.Provider whose clusters are the ClusterProfiles (KEP-4322,
multicluster.x-k8s.io/v1alpha1) of a hub cluster: the host cluster of the multi-cluster manager.

The provider's controller, registered on the host manager by SetupWithManager, watches ClusterProfiles in every
namespace. A profile whose cluster is ready (Options.IsReady; by default IsReady: the condition
ControlPlaneHealthy is True, as in the reference implementation; IsReadyAndJoined also requires Joined) is engaged, once its rest.Config has been obtained through the
kubeconfig strategy and the cluster has answered a version request with it. A profile that stops being ready or is
deleted is disengaged; a new rest.Config (a changed endpoint, a rotated Secret) replaces the cluster.

The strategy to use is AccessProvider (KEP-5339): the profile lists in status.accessProviders (or, in the older
API, status.credentialProviders) the access-provider types that reach its cluster, each with the cluster's endpoint
and CA, and an access-provider file (package access) maps types to client-go exec credential plugins. client-go runs
the plugin of the first type of the file the profile offers, caches the credential and refreshes it on expiry:

	accessConfig, err := access.NewFromFile(access.DefaultProviderFile)
	...
	provider, err := clusterinventoryapi.New(clusterinventoryapi.Options{
		KubeconfigStrategyOption: kubeconfigstrategy.Option{
			AccessProvider: &kubeconfigstrategy.AccessProviderOption{Provider: accessConfig},
		},
	})
	...
	mgr, err := mcmanager.New(cfg, provider, mcmanager.Options{})
	...
	err = provider.SetupWithManager(mgr)

The provider uses the ClusterProfile types of sigs.k8s.io/cluster-inventory-api/apis/v1alpha1 (v0.1.0), the module
the reference implementation uses, so Options.IsReady, Options.NewCluster and the strategies take the published
*ClusterProfile and AccessProviderOption.Provider the published *access.Config. SetupWithManager adds those types
to the hub manager's scheme only if it lacks them: a program that registered them itself (as the reference's
example does, before mcmanager.New) and one that did not both work. The ClusterProfile CRD is in config/crd (the
published module's, unchanged).

The Secret strategy (a kubeconfig in a labelled Secret on the hub) and the CredentialsProvider option (the earlier
name of AccessProvider) are deprecated but work as before.

Cluster names are stable: by default "<namespace>/<name>" of the profile (ProfileName). ClusterIDName names a
cluster by its KEP-2149 cluster ID, the property cluster.clusterset.k8s.io (or the older id.k8s.io) in the
profile's status.properties, falling back to "<namespace>/<name>" while the profile has none; set it as
Options.ClusterName. If a profile's name changes (its ID appears), the cluster is engaged under the new name, and
then the old name is disengaged.

The provider is built on clusters.Engager: its controller tells the engager what each profile's cluster should be,
and the engager checks the config against the cluster, builds (Options.NewCluster), starts, syncs, engages,
replaces and stops the clusters in the background, so a slow or unreachable cluster never holds up the others.
Failures are logged with the profile's cluster name and recorded as Warning events on the profile through the
events API (events.k8s.io/v1, reporting controller Options.ControllerName): a rest.Config that cannot be had (no
matching access provider, a malformed entry, a missing Secret; reason KubeconfigUnavailable) is retried by the
controller, and a cluster that cannot be reached (a plugin that fails, an unreachable API server) or does not sync
(reason clusters.ReasonEngageFailed) on the engager's backoff (clusters.DefaultRetryDelay, doubling, at most
clusters.DefaultMaxRetryDelay). Credentials never appear in logs, events or errors.

RBAC on the hub: multicluster.x-k8s.io clusterprofiles list, watch; events.k8s.io events create, patch; core
secrets list, watch (Secret strategy only). config/rbac/role.yaml is that ClusterRole (and rbac.go its markers),
and a test runs the provider with exactly those rights. The Secret strategy reads kubeconfigs under
SecretStrategyOption.KubeconfigPolicy, which by default refuses exec plugins, auth-providers, local files and
insecure TLS; a profile's access-provider entry may not switch off TLS verification unless allowed. The member
clusters need whatever the controllers' reconcilers need; the provider itself only asks each member for its version
before engaging it.

Main entry points:

  - New and Options: build the provider; Provider.SetupWithManager registers its controller with the host manager
    before it starts, and the multi-cluster manager starts it (Provider.Start); Provider.ClusterNames lists the
    engaged clusters.
  - IsReady, ProfileName, ClusterIDName: the defaults and the alternative naming.
  - Packages access (KEP-5339 access-provider files, over sigs.k8s.io/cluster-inventory-api/pkg/access),
    kubeconfigstrategy and apis/about/v1alpha1 (ClusterProperty); package credentials is the deprecated name of
    package access, and apis/v1alpha1 holds deprecated aliases of the published ClusterProfile types.
*/
package clusterinventoryapi
