// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package access turns the access providers of a ClusterProfile into a rest.Config that reaches the profile's
// cluster, the way KEP-5339 describes: a configuration file (Config) maps each access-provider type to a client-go
// exec credential plugin, and client-go runs the plugin, caches the credential it returns and refreshes it when it
// expires or the API server rejects it.
//
// It is a thin layer over sigs.k8s.io/cluster-inventory-api/pkg/access (v0.1.0): Config and Provider are that
// package's types, so a Config read with either package's NewFromFile works everywhere. What it adds: New and
// NewFromFile that validate (Validate) and reject unknown fields, and BuildConfigFromCP, which builds through the
// published method and completes its result (TLS server name, insecure-skip-tls-verify, proxy, errors that name
// the profile, no change to the Config). The provider's AccessProvider strategy uses BuildConfigFromCP.
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
// extension "client.authentication.k8s.io/exec", in KUBERNETES_EXEC_INFO. A provider's
// profileSourcedCLIArgsPolicy and profileSourcedEnvVarsPolicy decide whether the arguments and environment
// variables a profile offers in the extensions of KEP-5339 are added (by default they are ignored).
//
// Main entry points:
//
//   - NewFromFile and New: read or build a validated Config.
//   - BuildConfigFromCP: the rest.Config of one ClusterProfile.
package access
