/*
Package clusterinventoryapi provides a multicluster.Provider whose clusters are the ClusterProfiles (KEP-4322,
multicluster.x-k8s.io/v1alpha1) of a hub cluster: the host cluster of the multi-cluster manager.

The provider's controller, registered on the host manager by SetupWithManager, watches ClusterProfiles in every
namespace. A profile whose cluster is ready (Options.IsReady; by default IsReady: the conditions
ControlPlaneHealthy and Joined are both True) is engaged, once its rest.Config has been obtained through the
kubeconfig strategy (package kubeconfigstrategy: a labelled Secret, or KEP-5339 credential plugins) and the cluster
has answered a version request with it. A profile that stops being ready or is deleted is disengaged; a new
rest.Config (a rotated Secret, a changed endpoint) replaces the cluster.

Cluster names are stable: by default "<namespace>/<name>" of the profile (ProfileName). ClusterIDName names a
cluster by its KEP-2149 cluster ID, the property cluster.clusterset.k8s.io (or the older id.k8s.io) in the
profile's status.properties, falling back to "<namespace>/<name>" while the profile has none; set it as
Options.ClusterName. If a profile's name changes (its ID appears), the old name is disengaged and the new one
engaged.

Engaging runs in the background, one goroutine per profile, so a slow or unreachable cluster never holds up the
others. Failures (no kubeconfig Secret, no matching credential plugin, a plugin that fails, an unreachable API
server) are logged with the profile's cluster name, recorded as Warning events on the profile, and retried with
backoff; credentials never appear in logs, events or errors.

RBAC on the hub: multicluster.x-k8s.io clusterprofiles get, list, watch; core secrets get, list, watch (Secret
strategy only); core and events.k8s.io events create, patch. config/rbac/role.yaml is that ClusterRole, and a test
runs the provider with exactly those rights. The member clusters need whatever the controllers' reconcilers need;
the provider itself only asks each member for its version before engaging it.

Main entry points:

  - New and Options: build the provider; Provider.SetupWithManager registers it with a multi-cluster manager.
  - IsReady, ProfileName, ClusterIDName: the defaults and the alternative naming.
  - Packages apis/v1alpha1 (ClusterProfile), apis/about/v1alpha1 (ClusterProperty), kubeconfigstrategy and
    credentials.
*/
package clusterinventoryapi
