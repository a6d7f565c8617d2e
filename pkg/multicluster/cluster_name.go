// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

package multicluster

// ClusterName names a cluster of the fleet. Providers choose the names of their clusters; the empty name always
// means the host (local) cluster the manager was built for.
//
// Names are plain strings under a type of their own so that a cluster name cannot be confused with an object's
// name or namespace in a signature; convert with ClusterName(s) and s.String().
type ClusterName string

// String returns the name as a plain string.
func (n ClusterName) String() string {
	return string(n)
}

// Empty reports whether the name is the empty name, which means the host (local) cluster.
func (n ClusterName) Empty() bool {
	return n == ""
}
