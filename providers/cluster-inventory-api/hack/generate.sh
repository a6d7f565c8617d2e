#!/usr/bin/env bash
# Generates the deepcopy code and the CRD of the ClusterProperty API with controller-gen, fetched from the Go module
# proxy at the pinned version, and copies the ClusterProfile CRD from the module sigs.k8s.io/cluster-inventory-api
# the provider depends on (its types are that module's). Run from anywhere; `go generate ./...` in this module runs
# it too.
set -euo pipefail
CONTROLLER_GEN_VERSION=v0.23.0
cd "$(dirname "${BASH_SOURCE[0]}")/.."
gen=(go run "sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_GEN_VERSION}")
"${gen[@]}" object paths=./apis/about/...
"${gen[@]}" crd paths=./apis/about/... output:crd:artifacts:config=config/crd
published=$(go list -m -f '{{.Dir}}' sigs.k8s.io/cluster-inventory-api)
install -m 0644 "${published}/config/crd/bases/multicluster.x-k8s.io_clusterprofiles.yaml" config/crd/
