#!/usr/bin/env bash
# go build with a line of progress every BUILD_PROGRESS_INTERVAL seconds (default 20; hack/lib/progress.sh): modules
# downloaded, then packages compiled of those not in the build cache yet, time elapsed, an estimate of the time left.
# For the programs the Makefile builds and runs (make demo, make bench): their first build on a fresh machine
# compiles client-go and controller-runtime, minutes that would otherwise pass without a line. Prints nothing more
# than go build when everything is in the build cache.
#
# Usage: hack/go-build.sh -o OUTPUT [build flags] PACKAGES...   (where go build would run)
set -euo pipefail

# shellcheck source=lib/progress.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/progress.sh"

if [[ $# -lt 3 || "$1" != -o ]]; then
	echo "usage: $0 -o OUTPUT [build flags] PACKAGES..." >&2
	exit 2
fi
output=$2
shift 2

progress() { printf '[go build] %s\n' "$*" >&2; }

# The go command's temporary files go into tmp too: removed whatever happens to it.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GOTMPDIR="$tmp"
trap 'stop_watched; exit 130' INT
trap 'stop_watched; exit 143' TERM
build_started=$SECONDS

# go list with the flags of the build downloads what is missing and says which packages are not in the build cache.
if ! watch download_status "$tmp/packages" "$tmp/list.log" go list -deps -f "$list_format" "$@"; then
	cat "$tmp/list.log" >&2
	exit 1
fi
to_compile "$tmp/packages" >"$tmp/to-compile"
compile_list="$tmp/to-compile" compile_what=${output##*/} compile_started=$SECONDS
total=$(wc -l <"$compile_list" | tr -d ' ')
if ((total > 0)); then
	progress "compiling $total packages for $compile_what (not in the build cache yet; a line every ${progress_interval}s)"
fi
if ! watch compile_status /dev/null "$tmp/build.log" go build -v -o "$output" "$@"; then
	# Everything but the names of the packages compiled: the errors.
	grep -v '^[^ :#]*$' "$tmp/build.log" >&2 || true
	exit 1
fi
