// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package kubeconfig provides a provider of the clusters whose kubeconfigs are stored in Secrets of the host cluster:
one labelled Secret, one member cluster, named after the Secret.

	provider := kubeconfig.New(kubeconfig.Options{Namespace: "fleet"})
	mgr, err := mcmanager.New(cfg, provider, mcmanager.Options{})
	...
	err = provider.SetupWithManager(ctx, mgr)
	...
	err = mgr.Start(ctx)

# Which Secrets

Every Secret in Options.Namespace that carries the label Options.KubeconfigSecretLabel (default
"sigs.k8s.io/multicluster-runtime-kubeconfig", any value) describes the cluster named after the Secret (its name,
without the namespace, which is the same for all). The kubeconfig is under the key Options.KubeconfigSecretKey
(default "kubeconfig"); its current context is used. An empty Options.Namespace means the namespace the
controller runs in (the POD_NAMESPACE environment variable, else the namespace of the Pod's service account), else
"default".

The script examples/kubeconfig/scripts/create-kubeconfig-secret.sh creates such a Secret for a member cluster,
with a service account in the member that has exactly the RBAC rules you give it.

# Life of a cluster

  - Secret created (or labelled): the kubeconfig is turned into a rest.Config (clientcmd.RESTConfigFromKubeConfig),
    every Options.RESTOptions function adjusts it, and clusters.NewCluster builds the cluster with the host
    manager's scheme and Options.ClusterOptions. The provider registers the recorded field indexes, starts the
    cluster, waits for its cache to sync (the informers the indexes need; at most Options.WaitCacheTimeout) and
    engages it with the manager, whose controllers then start their watches. Get finds the cluster from the start;
    ClusterNames (and ListClusters) lists it from when it is handed to the manager; a Normal Event (ReasonEngaged)
    on the Secret records it.
  - Kubeconfig changed: a new cluster is built and engaged in place of the old one, which is stopped only once the
    new one is engaged. A change that leaves the rest.Config equal (formatting, comments) keeps the cluster.
  - Secret deleted, or label removed: the cluster is disengaged and stopped at once, even if it was still starting.
  - Key missing or kubeconfig malformed: a Warning Event on the Secret (reasons ReasonKubeconfigMissing and
    ReasonInvalidKubeconfig) and an error log say why, naming the Secret and the key; a cluster engaged from an
    earlier version of the Secret is disengaged; the Secret is not retried until it changes. Other clusters are
    not affected.
  - Cache not synced in time, or engaging failed: a Warning Event (ReasonEngageFailed) and an error log; the
    provider retries on the backoff of clusters.Engager (clusters.DefaultRetryDelay, 1s, doubling up to
    clusters.DefaultMaxRetryDelay, 2m) until it succeeds or the Secret changes, which is tried at once.

# Engaging in the background

The provider is built on clusters.Engager. Its controller never waits for a cluster: Reconcile reads the Secret
from the provider's cache and tells the engager what the Secret's cluster should be, then returns; the engager
works on it in the background (at most one goroutine per Secret, only while there is work, always towards the
Secret's latest version). So a cluster whose API server is slow or unreachable delays no other Secret, whatever the
number of such clusters, and deleting its Secret aborts the attempt at once. The manager starts the provider
(Start, a multicluster.ProviderRunnable), which engages the clusters of the Secrets reconciled before and after;
when the manager stops, the provider stops its clusters and its goroutines, and the manager's Start returns after
it has.

# Memory and RBAC

The provider does not use the manager's cache for Secrets: it runs a cache of its own that lists and watches only
the labelled Secrets of Options.Namespace, with managed fields stripped. The manager's service account needs a
Role in Options.Namespace, and nothing cluster-wide (config/rbac/role.yaml, and the markers of rbac.go):

  - list, watch on secrets;
  - create, patch on events.k8s.io events (Events on the Secrets).

# Kubeconfig policy

Whoever can write a labelled Secret chooses where the controller connects and with which credentials.
Options.KubeconfigPolicy (clusters.KubeconfigPolicy) bounds the rest: its zero value, the default, refuses exec
credential plugins, auth-providers, files of the controller's filesystem and insecure TLS, before anything runs or
is read. A refused Secret is reported like a malformed one (ReasonInvalidKubeconfig), naming the refused fields
and the option that would allow them.

# Credentials

Tokens, passwords, client keys and certificates never appear in the provider's logs, errors or Events: messages
name the Secret, the key and the cluster, and error texts from parsing a kubeconfig or starting a cluster are
redacted of anything found in the Secret or the credentials as a second line of defence.

# Logging

Every log line about a cluster carries the key "cluster" with its name; the provider logs through the host
manager's logger, named "kubeconfig-provider", and so does every cluster it builds.
*/
package kubeconfig
