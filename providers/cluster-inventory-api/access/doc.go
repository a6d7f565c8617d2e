// Package access turns the access providers of a ClusterProfile into a rest.Config that reaches the profile's
// cluster, the way KEP-5339 describes: a configuration file (Config) maps each access-provider type to a client-go
// exec credential plugin, and client-go runs the plugin, caches the credential it returns and refreshes it when it
// expires or the API server rejects it.
//
// The file (JSON or YAML; by convention clusterprofile-provider-file.json, DefaultProviderFile) looks like:
//
//	{"providers": [{"name": "token", "execConfig": {
//	    "apiVersion": "client.authentication.k8s.io/v1beta1",
//	    "command": "/usr/local/bin/token-plugin", "args": ["--audience", "fleet"],
//	    "env": [{"name": "MODE", "value": "fleet"}], "provideClusterInfo": true}}]}
//
// For a profile, the first provider of the file (in the file's order) whose name appears in the profile's
// status.accessProviders, or in the older status.credentialProviders, is used: the rest.Config's server, CA, TLS
// server name and proxy come from that entry's cluster, and its ExecProvider from the file's execConfig, with
// interactive mode Never. With provideClusterInfo, the plugin receives the cluster's details, including the entry's
// extension "client.authentication.k8s.io/exec", in KUBERNETES_EXEC_INFO.
//
// Main entry points:
//
//   - NewFromFile and New: read or build a validated Config.
//   - Config.BuildConfigFromCP: the rest.Config of one ClusterProfile.
//
// The provider uses a Config through kubeconfigstrategy.Option's AccessProvider.
package access
