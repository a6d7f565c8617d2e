// Copyright 2026 The multicluster-runtime Authors.
// SPDX-License-Identifier: Apache-2.0

/*
Package envtest starts fleets of real Kubernetes control planes for multi-cluster integration tests. It builds on
controller-runtime's envtest (sigs.k8s.io/controller-runtime/pkg/envtest): each control plane of a fleet is an
envtest.Environment, that is an etcd and a kube-apiserver process of its own, with no controller-manager, scheduler
or nodes. Import it under a name that tells it apart from controller-runtime's package:

	import mcenvtest "sigs.k8s.io/multicluster-runtime/pkg/envtest"

A Fleet has an optional host control plane, for the multi-cluster manager itself, and any number of named members,
the clusters the manager reconciles across. Members can join (AddMember) and leave (RemoveMember) while the fleet
runs, and the API server of any of them can be stopped and started again (StopMemberAPIServer,
RestartMemberAPIServer) on the same address with the same certificates, so that tests can take a cluster away and
bring it back under the same configs and kubeconfigs. For fault tests, an API server can also be killed with
SIGKILL as in a crash (KillMemberAPIServer, then RestartMemberAPIServer), or paused with SIGSTOP so that it accepts
connections but answers nothing, as a hung process would (PauseMemberAPIServer, ResumeMemberAPIServer); only the
processes the fleet started are signalled, by pid (Linux only).

Main entry points:

  - NewFleet and Options: describe the fleet (how many members, CRDs to install into every control plane, host or
    not); Start starts every control plane in parallel, Stop stops them and removes all their files.
  - Host and HostEnvironment: the host's admin config and envtest environment.
  - Members, Config and Kubeconfig: the members' names and, for each, an admin config or a self-contained
    kubeconfig; MergedKubeconfig and WriteKubeconfig put several members into one kubeconfig, a context each.
  - AddUser and ServiceAccountConfig: configs for users and service accounts with only the rights RBAC grants them.
  - BinaryAssetsDirectory: where the etcd and kube-apiserver binaries are found.

# Binaries

The control planes run etcd and kube-apiserver binaries of KubernetesVersion. Build them once with
hack/envtest-assets.sh (make test does it too), which caches them outside the repository; the kit finds them there.
To use other binaries, set KUBEBUILDER_ASSETS to the directory holding them, or Options.BinaryAssetsDirectory.

# Resources

Each control plane costs about 300 MB of memory (of which kube-apiserver's binary, about 80 MB, is shared between
control planes) and 3 CPU-seconds to start, and takes a few seconds to start on an idle machine. The
control planes of a fleet start in parallel, so on a machine with few cores, start-up time grows with the number of
control planes: start the members a test needs, not more.
*/
package envtest
