#!/usr/bin/env bash
# Builds the control-plane binaries the tests run (etcd and kube-apiserver) from the Go module proxy and caches them
# outside the repository, keyed by version. Prints the directory that holds them (use it as KUBEBUILDER_ASSETS).
#
# Neither binary installs with `go install pkg@version`: the go.mod files of k8s.io/kubernetes and of
# go.etcd.io/etcd/server/v3 carry `replace` directives. So this script writes a throwaway module that requires
# k8s.io/kubernetes, maps every k8s.io staging module it replaces to the published v0.x.y version of the same release,
# and builds both main packages from there.
#
# Environment:
#   KUBERNETES_VERSION   kube-apiserver version to build (default v1.37.2)
#   ETCD_VERSION         etcd version to build (default: the one k8s.io/kubernetes requires)
#   ENVTEST_ASSETS_DIR   cache root (default: $XDG_CACHE_HOME or ~/.cache, then multicluster-runtime/envtest)
#
# Usage: hack/envtest-assets.sh [--print-only]
#   --print-only  print the directory the binaries would live in, build nothing.
set -euo pipefail

KUBERNETES_VERSION=${KUBERNETES_VERSION:-v1.37.2}
cache_root=${ENVTEST_ASSETS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/multicluster-runtime/envtest}
dest="$cache_root/kubernetes-${KUBERNETES_VERSION}"

log() { printf '[envtest-assets] %s\n' "$*" >&2; }

if [[ "${1:-}" == "--print-only" ]]; then
	echo "$dest"
	exit 0
fi

if [[ -x "$dest/kube-apiserver" && -x "$dest/etcd" ]]; then
	echo "$dest"
	exit 0
fi

command -v go >/dev/null || { log "go is not on PATH"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

log "building kube-apiserver ${KUBERNETES_VERSION} and etcd from the Go module proxy into $dest"
log "this happens once per version and takes a few minutes; later runs reuse the cache"

log "step 1/4: reading k8s.io/kubernetes@${KUBERNETES_VERSION}'s go.mod"
gomod=$(go mod download -json "k8s.io/kubernetes@${KUBERNETES_VERSION}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
[[ -f "$gomod" ]] || { log "could not download k8s.io/kubernetes@${KUBERNETES_VERSION}"; exit 1; }

# Every staging module of release v1.X.Y is published as v0.X.Y.
staging_version="v0.${KUBERNETES_VERSION#v1.}"
ETCD_VERSION=${ETCD_VERSION:-$(awk '$1 == "go.etcd.io/etcd/server/v3" {print $2}' "$gomod")}

{
	echo "module envtestassets"
	echo
	echo "go 1.26.0"
	echo
	echo "require ("
	echo "	k8s.io/kubernetes ${KUBERNETES_VERSION}"
	echo "	go.etcd.io/etcd/server/v3 ${ETCD_VERSION}"
	echo ")"
	echo
	echo "replace ("
	awk '$2 == "=>" && $3 ~ /^\.\/staging\// {print "\t" $1 " => " $1 " '"${staging_version}"'"}' "$gomod"
	echo ")"
} >go.mod
cat >tools.go <<'GO'
//go:build tools

package envtestassets

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
GO

log "step 2/4: resolving dependencies (kubernetes ${KUBERNETES_VERSION}, staging ${staging_version}, etcd ${ETCD_VERSION})"
GOFLAGS=-mod=mod go mod tidy -e >/dev/null 2>"$work/tidy.log" || { cat "$work/tidy.log" >&2; exit 1; }

mkdir -p "$dest.tmp"
export CGO_ENABLED=0
log "step 3/4: compiling etcd ${ETCD_VERSION}"
go build -tags tools -trimpath -o "$dest.tmp/etcd" go.etcd.io/etcd/server/v3
log "step 4/4: compiling kube-apiserver ${KUBERNETES_VERSION} (the long step)"
go build -tags tools -trimpath -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=${KUBERNETES_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${KUBERNETES_VERSION#v1.}" -o "$dest.tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver

rm -rf "$dest"
mv "$dest.tmp" "$dest"
log "done: $dest"
echo "$dest"
