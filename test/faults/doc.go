// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package faults is the fault suite of multicluster-runtime: its tests run a fleet of real control planes (a host and
members, each an etcd and a kube-apiserver of its own), engage the members through the file provider, the
kubeconfig-Secret provider and the cluster-inventory-api provider, and inflict on them what breaks real fleets: a
member's API server killed and restarted, a member that stops answering, rotated credentials and endpoints, bad
input of every kind. They measure what the library promises under each fault (other members unaffected, nothing
written lost, the time a member takes to resume, no credential in any log line, event or error) and print the
figures; docs/reliability.md quotes them. Package rig holds the machinery; the soak (package soak) uses it too.

Run it with

	cd test/faults && GOWORK=off go test -race -v .

With FAULTS_FIGURES set to a path, the suite also writes its figures there (CI prints them).
*/
package faults
