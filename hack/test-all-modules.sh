#!/usr/bin/env bash
# Runs `go vet ./...` and `go test -race ./...` in every Go module of the repository: the root module and every
# directory below it with its own go.mod (providers usually have one), found anew on each run. Keeps going after a
# failing module and exits non-zero at the end if any module failed.
#
# Environment:
#   GO_TEST_FLAGS   extra flags for `go test`, e.g. "-count=1" or "-run=TestFoo -v"
#   GO_TEST_TIMEOUT value for `go test -timeout` (default 30m)
#   KUBEBUILDER_ASSETS  directory with etcd and kube-apiserver (`make test` sets it from hack/envtest-assets.sh)
#
# Usage: hack/test-all-modules.sh [--list]
#   --list  print the module directories (relative to the repository root, root first) and exit.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# Module directories, "." first. Skips the tool module under hack/tools, vendored code, test data and bin/.
list_modules() {
	echo "."
	find . -mindepth 2 -name go.mod \
		-not -path './.git/*' \
		-not -path './bin/*' \
		-not -path './hack/tools/*' \
		-not -path '*/vendor/*' \
		-not -path '*/testdata/*' \
		-not -path '*/_*' \
		-printf '%h\n' | sed 's|^\./||' | LC_ALL=C sort
}

if [[ "${1:-}" == "--list" ]]; then
	list_modules
	exit 0
fi

# Each module must build on its own, with its own go.mod and replace directives: the go.work at the root is for
# development only, and in workspace mode `./...` at the root would also match the other modules' packages.
export GOWORK=off

read -r -a extra_flags <<<"${GO_TEST_FLAGS:-}"
timeout=${GO_TEST_TIMEOUT:-30m}

if [[ -z "${KUBEBUILDER_ASSETS:-}" ]]; then
	echo "warning: KUBEBUILDER_ASSETS is not set; tests that start a control plane will fail (use 'make test')" >&2
fi

mapfile -t modules < <(list_modules)
failed=()
for mod in "${modules[@]}"; do
	echo "=== module ${mod} ==="
	ok=true
	echo "--- go vet ./... (${mod})"
	(cd "$mod" && go vet ./... </dev/null) || ok=false
	echo "--- go test -race -timeout ${timeout} ${extra_flags[*]} ./... (${mod})"
	(cd "$mod" && go test -race -timeout "$timeout" "${extra_flags[@]}" ./... </dev/null) || ok=false
	if [[ "$ok" == true ]]; then
		echo "=== module ${mod}: ok ==="
	else
		echo "=== module ${mod}: FAILED ==="
		failed+=("$mod")
	fi
done

if ((${#failed[@]} > 0)); then
	echo "FAILED modules: ${failed[*]}" >&2
	exit 1
fi
echo "all modules passed"
