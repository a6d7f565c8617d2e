#!/usr/bin/env bash
# Generates the deepcopy code and the CRDs of the API types with controller-gen, fetched from the Go module proxy at
# the pinned version. Run from anywhere; `go generate ./...` in this module runs it too.
set -euo pipefail
CONTROLLER_GEN_VERSION=v0.23.0
cd "$(dirname "${BASH_SOURCE[0]}")/.."
gen=(go run "sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_GEN_VERSION}")
"${gen[@]}" object paths=./apis/...
"${gen[@]}" crd paths=./apis/... output:crd:artifacts:config=config/crd
