// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

// Package credentials is the earlier name of package access: it maps the credential-provider types of a
// ClusterProfile to client-go exec credential plugins (KEP-5339). Every name here is an alias of, or forwards to,
// its counterpart in package access, so a CredentialsProvider is an access.Config and behaves the same.
//
// Deprecated: use package access, and kubeconfigstrategy.Option's AccessProvider instead of CredentialsProvider.
package credentials
