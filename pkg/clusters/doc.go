// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package clusters provides Clusters, the building block of providers: a map of named clusters that starts each
cluster with its own context, waits (bounded) for its cache, engages it, re-applies every recorded field index to
clusters added later, and stops a cluster by cancelling its context.

A provider embeds Clusters[T] (which gives it Get and IndexField) and calls Add, AddOrReplace and Remove from its
discovery loop.

Engager is the provider kit built on Clusters: a provider that discovers clusters from a source (files, Secrets,
Cluster API objects, ClusterProfiles, ...) says what each cluster name should be (Want, a Target: a rest.Config and
the object it came from) or that it should be gone (Remove), and the engager builds the clusters with NewCluster,
engages, replaces and stops them, retries failures on one backoff policy, and reports every outcome (logs, Events,
OnOutcome). Every provider of this repository that discovers clusters is built on it, and a provider written
elsewhere can be too: an Engager is a provider by itself (Get, IndexField, ClusterNames, Start).

NewCluster is the one way the library builds a cluster from a rest.Config, with the defaults it recommends
(DefaultClusterOptions) after the caller's options.

Registry[T] is the lighter sibling for components that only need to know which clusters are engaged: a name →
cluster map that starts nothing. It is a multicluster.Aware and a manager.Runnable, so mgr.Add(registry) has it
engaged like any controller (a cluster stays registered while the context it was engaged with lives), and it serves
Get for a provider that hands out clusters something else runs. Its methods have the signatures of the reference
implementation's Registry (v0.24).

Engagements is the bookkeeping of the clusters engaged with one component, which the manager, the coordinators and
the controllers share (and custom coordinators can use): a name → engagement map with the rules of
multicluster.Aware.Engage (the same instance again is a no-op, another instance replaces, an engagement is
forgotten once its context ends, and the end of a replaced engagement never removes its replacement). A coordinator
that fences the work on a cluster attaches a WorkGate to the engagement's context (WithWorkGate); it travels with
the engagement down to the controllers.

WithLifetime makes the context of an engaged cluster (Clusters gives every cluster one): a context.WithCancel
whose end the layers that engage the cluster watch cheaply, through AfterFunc (this package's), with an entry in a
list instead of a context and a context.AfterFunc registration each.

KubeconfigPolicy and RESTConfigFromKubeconfig turn kubeconfigs read from the API (a Secret, a ClusterProfile)
into rest.Configs under a policy whose zero value refuses what would let the kubeconfig's author take the controller
over: exec credential plugins, auth-providers, files of the controller's filesystem and insecure TLS. Refusal is
decided before anything runs or is read, and names the fields and the options that would allow them.

Guarantees:

  - A cluster is retrievable with Get from before it is engaged until its context ends, so no event of a new
    cluster reaches a reconciler that cannot find it.
  - Replacing a cluster under the same name engages the new one before stopping the old one, and the old one's
    teardown never removes the new one.
  - A cluster that fails to start, sync or engage is stopped and removed entirely, and the error names it.
  - Field indexes registered at any time reach every cluster, current and future.
*/
package clusters
