// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package recovery makes the informers of a member cluster resume as soon as the cluster's API server answers again
after an outage, instead of each waiting out its own growing retry backoff.

Without it, every informer of a cluster whose API server goes away retries its list or watch on client-go's
reflector backoff (0.8 s doubling to a cap of 30 s, with up to 100% jitter), independently of the others, and a
"resource version too old" answer after the restart costs one more step: measured on real control planes, a
cluster's reconciles resumed anywhere from 0.4 s to over 30 s after its API server was ready again.

ClusterOption wraps the list and watch calls of every informer of a cluster's cache. While the cluster is healthy
the wrapper only reads an atomic flag: no extra request is ever made. When a call fails because the API server
cannot be reached (connection refused or reset, timeouts, a lost HTTP/2 connection, 503), the cluster is marked
failing and the call, instead of returning the error (which would grow the reflector's backoff), waits for the
cluster to answer a cheap readiness probe (GET /readyz with a short timeout), then tries again. One of the waiting
calls runs the probes, backing off (100 ms doubling to 1 s, with 10% jitter) while the cluster stays down; once a
probe is answered, every waiting call of every informer proceeds at once, so the whole cache relists within a probe
interval of the API server being ready. A watch that resumes from a resource version is not held back but fails at once as
expired while the cluster is failing, so that its reflector lists again through the gate: resuming it after the
outage would cost a "too old resource version" answer from an API server that restarted, and one more backoff step.
Errors that are not about reaching the server (forbidden, not found, too
many requests) are returned to the reflector as before. If a probe is answered but calls keep failing, the probe
interval grows further (up to the reflector's own 30 s cap), so a member that answers /readyz but not its API never
sees more requests than client-go would send.

The probe uses the cluster's HTTP client when one is set in cluster.Options, and otherwise one built from the
cluster's rest.Config (client-go shares the transport of equal configs, so no new connection is opened while the
member is healthy). It authenticates as the cluster does; any answer but 429 and 5xx counts as the server
answering (a 401 or 403 for /readyz means a server that is up).

Two more things make a failing member visible in the logs under its name: the option runs every informer of the
cluster with the key "cluster" in its logger (controller-runtime runs them all with one logger, so that their lines,
such as "watch ended with error", would not say which cluster they are about), and it wraps the cluster's HTTP client
with a watchdog that logs a request not answered after 10 s (Options.SlowRequestThreshold): an API server that
accepts connections and answers nothing, or a credential plugin that hangs (client-go runs plugins without a timeout
and holds the request meanwhile), is otherwise reported by nobody. The watchdog costs a timer per request.

Waiting calls end when the informer is stopped (its context ends), so a cluster that is disengaged while its API
server is down leaves nothing behind.

clusters.NewCluster (package pkg/clusters), the constructor through which every provider of this repository builds
its clusters, applies ClusterOption to every cluster after the caller's options; a provider written outside this
repository gets it the same way, or appends ClusterOption itself when it builds clusters with cluster.New.

Main entry points: ClusterOption and ClusterOptionWith; Gate and Wrap for a ListerWatcher built by hand.
*/
package recovery
