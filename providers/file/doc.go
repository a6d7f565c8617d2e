// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package file provides a multicluster.Provider whose clusters are the contexts of kubeconfig files on disk, kept in
line with the files while it runs.

# Sources

Options.KubeconfigFiles names kubeconfig files; Options.KubeconfigDirs names directories whose files matching
Options.KubeconfigGlobs (default DefaultKubeconfigGlobs: kubeconfig.yaml, kubeconfig.yml, *.kubeconfig,
*.kubeconfig.yaml, *.kubeconfig.yml) are read; subdirectories are not searched. With neither set, the provider reads
the default locations:

  - every file listed in $KUBECONFIG (a list separated by os.PathListSeparator), if set;
  - ~/.kube/config;
  - the files of the working directory matching the globs.

Sources that do not exist yet are not an error: they are engaged when they appear. Relative paths are resolved when
New is called. Files are read on their own: unlike kubectl, the provider does not merge the files of $KUBECONFIG,
so a context must find its cluster and user in its own file.

# Cluster names

Every context of every file is a cluster, named

	<absolute, cleaned path of the file><Separator><context name>

with Separator "+" by default (DefaultSeparator), for example "/home/me/.kube/config+kind-dev". Symbolic links in
the path are not resolved, so that a file reached through a link that changes (as in Kubernetes volumes) keeps its
name. Names are stable: the same context of the same file has the same name across edits and restarts.
Provider.ClusterName computes it.

# Watching

Start engages every context at once, in parallel, then watches the directories holding the sources (the parent
directory of each file, not the file, so that files replaced by a rename are followed; the nearest existing
ancestor of a directory that does not exist yet). Events are coalesced over a short window (100ms after the first
event of a burst), then the sources are read again and the differences applied: new contexts are engaged, changed
ones (endpoint, credentials or any other connection setting of the resulting rest.Config) replaced with
clusters.Clusters.AddOrReplace, which engages the new cluster before stopping the old, and vanished ones
disengaged. The clusters are engaged by a clusters.Engager, which handles each cluster name with one goroutine at a
time, in parallel with every other name, and only while it has work; a cluster that fails to build, sync or engage
is retried on its backoff (clusters.DefaultRetryDelay, doubling, at most clusters.DefaultMaxRetryDelay) and delays
no other. RunOnce does a single read and apply, without watching and without retrying.

A file that cannot be read or parsed, or a context that cannot be loaded, is reported once with its path (to the
embedded Clusters' ErrorHandler if set, else logged) and keeps the clusters of its last good version: a file caught
half written, or mistyped in an editor, does not tear down the clusters it defines, and the others are not
affected. An empty file is reported the same way and keeps its clusters too (it may be caught being written).
Removing the file (or its context) disengages them. Credentials never appear in logs or errors.

Kubernetes Secret and ConfigMap volumes, updated by swapping a "..data" link, are followed as well. Changes to files
a kubeconfig refers to (certificate files, token files) are not watched; the cluster sees them as client-go does.

Main entry points:

  - New and Options: configure the provider.
  - Provider.Start: engage and follow the files; started by the multi-cluster manager.
  - Provider.RunOnce: engage what the files define now, without watching.
  - Provider.Get, Provider.ClusterNames, Provider.IndexField: from the embedded clusters.Clusters.
*/
package file
