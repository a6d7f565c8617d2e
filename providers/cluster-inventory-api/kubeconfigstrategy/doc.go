// Package kubeconfigstrategy decides how the cluster-inventory-api provider obtains a rest.Config for a
// ClusterProfile's cluster. Two strategies exist, chosen with Option:
//
//   - Secret: a kubeconfig stored on the hub in a Secret in the profile's namespace, labelled
//     x-k8s.io/cluster-inventory-consumer=<consumer name> and x-k8s.io/cluster-profile=<profile name>, under the
//     data key "Config". A change to such a Secret re-reconciles its profile (CustomWatches).
//   - CredentialsProvider: the profile's status.credentialProviders and a KEP-5339 credential-plugin file (package
//     credentials): client-go runs the plugin and refreshes the credential.
package kubeconfigstrategy
