// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package sanitize turns arbitrary strings, such as cluster names, into names the Kubernetes API accepts.

DNS1123 makes a valid DNS-1123 subdomain (a valid DNS-1123 label when it has no dot) out of any string, the same
one for the same input; names that are valid already are returned unchanged.

This package exists because programs written for the reference implementation of multicluster-runtime (v0.24)
import sigs.k8s.io/multicluster-runtime/pkg/util/sanitize, and its name is part of the API this module keeps
compatible (see docs/getting-started/compatibility.md). The house style otherwise has no util packages: new
helpers belong in the package of the concept they serve.
*/
package sanitize
