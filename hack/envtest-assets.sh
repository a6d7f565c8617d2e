#!/usr/bin/env bash
# Prints the directory that holds the control-plane binaries the tests and demos run, kube-apiserver and etcd (use it
# as KUBEBUILDER_ASSETS), after building them from the Go module proxy if there are none yet. Its first line (on
# stderr, like everything it says) names the binaries it uses or builds. In this order:
#
#   1. KUBEBUILDER_ASSETS, when set: a directory that already holds kube-apiserver and etcd (setup-envtest's, release
#      binaries, your own build). Used as it is, whatever their version; an error if either is missing or does not run.
#   2. The cache, ${ENVTEST_ASSETS_DIR}/kubernetes-${KUBERNETES_VERSION}, when both binaries there run.
#   3. Otherwise both are built into the cache: once per version, about 15 minutes of two cores when the Go module and
#      build caches are empty (docs/getting-started/prerequisites.md has the figures).
#
# The build. Neither binary installs with `go install pkg@version`: the go.mod files of k8s.io/kubernetes and of
# go.etcd.io/etcd/server/v3 carry `replace` directives. So a throwaway module requires both, maps every k8s.io staging
# module k8s.io/kubernetes replaces to the published v0.x.y version of the same release, and ONE `go build` compiles
# both binaries: they share the module downloads and the packages they have in common, and the two cores stay busy
# until the end. The flags are those of a Kubernetes release build (hack/lib/golang.sh: tags selinux, notest and
# grpcnotrace; -trimpath; no symbol table and no DWARF, -ldflags=-s -w), and the compiler writes no DWARF either,
# since the linker would drop it. (The tags that once left out code, providerless and dockerless, no longer appear
# in any file of v1.37: the in-tree cloud providers and dockershim are gone. The three above change a few files, not
# which packages are compiled; most of the saving is the single go build, no DWARF, and downloading only the modules
# the two binaries import instead of what `go mod tidy` wants for their tests.) While it runs, a line of progress every BUILD_PROGRESS_INTERVAL seconds (hack/lib/
# progress.sh): modules downloaded, then packages compiled of the total, time elapsed, an estimate of the time left and
# the package being compiled.
#
# Interruptions. The binaries are built in a work directory beside the cache (kubernetes-<version>.build), checked
# (they must run and report their versions) and only then renamed into place: a half-written binary is never used.
# A build stopped by a signal or an error records why there; the next run says what happened, deletes the directory
# and starts again (whatever was downloaded or compiled is reused from the Go caches). Two runs at once (two make
# targets, two terminals) take a lock: the second waits, repeating the first one's progress, and then uses its binaries.
#
# Environment:
#   KUBEBUILDER_ASSETS         use the binaries in this directory; build nothing
#   ENVTEST_ASSETS_DIR         cache root (default: ${XDG_CACHE_HOME:-~/.cache}/multicluster-runtime/envtest)
#   KUBERNETES_VERSION         kube-apiserver version to build (default v1.37.2)
#   ETCD_VERSION               etcd version to build (default: the one k8s.io/kubernetes requires)
#   BUILD_PROGRESS_INTERVAL    seconds between two lines of progress (default 20)
#   GOMODCACHE, GOCACHE, GOPROXY and the other variables of the go command apply as usual.
#
# Usage: hack/envtest-assets.sh [--print-only]
#   --print-only  print the directory the binaries would live in, build nothing.
set -euo pipefail

KUBERNETES_VERSION=${KUBERNETES_VERSION:-v1.37.2}
cache_root=${ENVTEST_ASSETS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/multicluster-runtime/envtest}
dest="$cache_root/kubernetes-${KUBERNETES_VERSION}"
work="$dest.build"
lock="$dest.lock"

# shellcheck source=lib/progress.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/progress.sh"

# The main packages, the tags and the flags of the build (see above). go build names the binary of a main package
# after the last element of its path that is not a major version: go.etcd.io/etcd/server/v3 becomes "server".
apiserver_pkg=k8s.io/kubernetes/cmd/kube-apiserver
etcd_pkg=go.etcd.io/etcd/server/v3
minor=${KUBERNETES_VERSION#v1.}
minor=${minor%%.*}
build_flags=(
	-tags selinux,notest,grpcnotrace
	-trimpath
	-gcflags=all=-dwarf=false
	-ldflags "-s -w -X k8s.io/component-base/version.gitVersion=${KUBERNETES_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${minor}"
)

log() { printf '[envtest-assets] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# describe DIR prints "kube-apiserver v1.37.2 and etcd 3.7.0" when DIR holds both binaries and both report their
# versions; it fails, saying why on stdout, when either is missing or does not run.
describe() {
	local dir=$1 name out apiserver etcd
	for name in kube-apiserver etcd; do
		if [[ ! -e "$dir/$name" ]]; then
			printf '%s is missing' "$dir/$name"
			return 1
		fi
		if ! out=$("$dir/$name" --version 2>&1); then
			printf '%s --version failed: %s' "$dir/$name" "$(head -n 1 <<<"$out")"
			return 1
		fi
		case $name in
		kube-apiserver) apiserver=${out##* } ;;                         # "Kubernetes v1.37.2"
		etcd) etcd=$(sed -n 's/^etcd Version: //p' <<<"$out" | head -n 1) ;; # "etcd Version: 3.7.0" and more lines
		esac
	done
	printf 'kube-apiserver %s and etcd %s' "$apiserver" "${etcd:-(version unknown)}"
}

case "${1:-}" in
"") ;;
--print-only)
	echo "$dest"
	exit 0
	;;
*)
	echo "usage: $0 [--print-only]" >&2
	exit 2
	;;
esac

# 1. Binaries the user already has.
if [[ -n "${KUBEBUILDER_ASSETS:-}" ]]; then
	if ! found=$(describe "$KUBEBUILDER_ASSETS"); then
		die "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS does not hold binaries that run ($found); point it at a directory with kube-apiserver and etcd, or unset it to build them into $dest"
	fi
	note=""
	[[ "$found" == "kube-apiserver ${KUBERNETES_VERSION} "* ]] || note=" (this repository is tested with ${KUBERNETES_VERSION})"
	log "using $found from KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS$note"
	echo "$KUBEBUILDER_ASSETS"
	exit 0
fi

# 2. The cache.
if found=$(describe "$dest"); then
	log "using $found from $dest"
	echo "$dest"
	exit 0
fi

# 3. The build.
if [[ -e "$dest" ]]; then
	log "building kube-apiserver ${KUBERNETES_VERSION} and etcd into $dest again: $found"
else
	log "building kube-apiserver ${KUBERNETES_VERSION} and etcd into $dest: once per version, about 15 minutes of two cores with empty Go caches; set KUBEBUILDER_ASSETS to a directory with both binaries to skip this"
fi
command -v go >/dev/null || die "go is not on PATH"
mkdir -p "$cache_root"

# The lock: flock(1) where there is one (Linux), perl's flock otherwise (macOS); both lock the open file on descriptor
# 9, which this script (and the go build it starts) keeps open until it exits.
if command -v flock >/dev/null; then
	try_lock() { flock -n 9; }
elif command -v perl >/dev/null; then
	try_lock() { perl -MFcntl=:flock -e 'open(my $fh, ">&=", 9) or exit 2; flock($fh, LOCK_EX | LOCK_NB) or exit 1'; }
else
	log "warning: neither flock nor perl is on PATH: two runs at once would build twice"
	try_lock() { true; }
fi
exec 9>>"$lock"
if ! try_lock; then
	log "another run ($(cat "$lock" 2>/dev/null || echo "pid unknown")) is building them already; waiting for it to finish"
	waited=$SECONDS
	next=$((SECONDS + progress_interval))
	until try_lock; do
		sleep 0.5
		if ((SECONDS >= next)); then
			log "still waiting ($(duration $((SECONDS - waited)))); the other run's last progress: $(cat "$work/status" 2>/dev/null || echo "none")"
			schedule_next
		fi
	done
	if found=$(describe "$dest"); then
		log "the other run built them: using $found from $dest"
		echo "$dest"
		exit 0
	fi
	log "the other run did not build them; building them here"
fi
printf 'pid %s, since %s\n' "$$" "$(date -u +%H:%M:%SZ)" >"$lock"

# A work directory left behind is a build that did not finish: say why, then start again.
if [[ -d "$work" ]]; then
	started=$(cat "$work/started" 2>/dev/null || echo "started at an unknown time")
	if [[ -f "$work/outcome" ]]; then
		log "the previous build ($started) did not finish: $(cat "$work/outcome")"
	else
		log "the previous build ($started) did not finish and recorded no reason (killed, the machine stopped, or the disk was full)"
	fi
	log "starting again; whatever it downloaded or compiled is reused from the Go caches"
	rm -rf "$work"
fi

mkdir -p "$work/tmp"
printf 'pid %s, started %s\n' "$$" "$(date -u '+%Y-%m-%d %H:%M:%SZ')" >"$work/started"
build_started=$SECONDS

# record REASON writes why the build stopped, for the next run (which may find a full disk: ignore a failure).
record() { printf '%s\n' "$*" >"$work/outcome" 2>/dev/null || true; }

# progress LINE prints a line of progress and keeps it for a run that waits for the lock.
progress() {
	log "$*"
	printf '%s\n' "$*" >"$work/status.tmp" 2>/dev/null && mv -f "$work/status.tmp" "$work/status" 2>/dev/null || true
}

# fail REASON [LOG] stops the build: says why, shows the end of LOG and records the reason for the next run.
fail() {
	local reason=$1 out=${2:-}
	if [[ -n "$out" ]] && grep -qi 'no space left on device' "$out" 2>/dev/null; then
		reason="$reason: the disk is full (the build needs about 5 GB free in GOMODCACHE=$(go env GOMODCACHE), GOCACHE=$(go env GOCACHE) and $cache_root)"
	fi
	if [[ -n "$out" && -s "$out" ]]; then
		log "the last lines of its output ($out):"
		tail -n 20 "$out" | sed 's/^/    /' >&2
	fi
	record "$reason, after $(duration $((SECONDS - build_started)))"
	rm -rf "$work/tmp"
	log "error: $reason; nothing was installed, the next run starts again"
	exit 1
}

# stop SIGNAL STATUS: the build was interrupted; stop the go command and everything it started, and say so.
stop() {
	trap '' INT TERM HUP
	stop_watched
	rm -rf "$work/tmp"
	record "interrupted by SIG$1 after $(duration $((SECONDS - build_started))), at: $(cat "$work/status" 2>/dev/null || echo "the start")"
	log "interrupted by SIG$1 after $(duration $((SECONDS - build_started))): nothing was installed; the next run starts again and reuses what was downloaded and compiled"
	exit "$2"
}
# Any other way out before the end (an unexpected error) is recorded too.
on_exit() {
	local rc=$?
	[[ -f "$work/outcome" || ! -d "$work" ]] || record "stopped by an unexpected error (exit status $rc)"
}
trap on_exit EXIT
trap 'stop INT 130' INT
trap 'stop TERM 143' TERM
trap 'stop HUP 129' HUP

# The go command as this build runs it: module mode without the user's workspace or flags, no cgo, its temporary
# files in the work directory (deleted with it, whatever happens to the go command).
export GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0 GO111MODULE=on GOTMPDIR="$work/tmp"
cd "$work"

progress "step 1/3: reading k8s.io/kubernetes@${KUBERNETES_VERSION}'s go.mod"
gomod=$(go list -m -json "k8s.io/kubernetes@${KUBERNETES_VERSION}" 2>"$work/gomod.log" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p') || true
[[ -f "$gomod" ]] || fail "could not download k8s.io/kubernetes@${KUBERNETES_VERSION}'s go.mod" "$work/gomod.log"

# Every staging module of release v1.X.Y is published as v0.X.Y.
staging_version="v0.${KUBERNETES_VERSION#v1.}"
ETCD_VERSION=${ETCD_VERSION:-$(awk '$1 == "go.etcd.io/etcd/server/v3" {print $2}' "$gomod")}
[[ -n "$ETCD_VERSION" ]] || fail "k8s.io/kubernetes@${KUBERNETES_VERSION} does not require go.etcd.io/etcd/server/v3; set ETCD_VERSION"
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

# The lines of progress of steps 1 and 2, from the go command's stderr.
step1() { printf 'step 1/3: %s' "$(download_status "$1")"; }
step2() { printf 'step 2/3: %s' "$(compile_status "$1")"; }

# Listing the packages both binaries import downloads the modules that provide them (only those: not the test
# dependencies a `go mod tidy` would fetch) and says which packages are not in the build cache yet.
progress "step 1/3: downloading the modules of kube-apiserver ${KUBERNETES_VERSION} (staging ${staging_version}) and etcd ${ETCD_VERSION}"
watch step1 "$work/packages" "$work/download.log" go list -deps "${build_flags[@]}" -f "$list_format" "$apiserver_pkg" "$etcd_pkg" ||
	fail "go list failed" "$work/download.log"

to_compile "$work/packages" >"$work/to-compile"
compile_list="$work/to-compile" compile_what="kube-apiserver and etcd" compile_started=$SECONDS
total=$(wc -l <"$compile_list" | tr -d ' ')
all=$(wc -l <"$work/packages" | tr -d ' ')
progress "step 2/3: compiling $total of the $all packages kube-apiserver and etcd need (the long step; a line every ${progress_interval}s)"
mkdir -p "$work/bin"
watch step2 /dev/null "$work/build.log" go build -v "${build_flags[@]}" -o "$work/bin/" "$apiserver_pkg" "$etcd_pkg" ||
	fail "go build failed" "$work/build.log"
mv "$work/bin/server" "$work/bin/etcd" 2>/dev/null || true

progress "step 3/3: checking the binaries"
built=$(describe "$work/bin") || fail "the binaries built do not run: $built"
[[ "$built" == "kube-apiserver ${KUBERNETES_VERSION} "* ]] || fail "kube-apiserver reports the wrong version: $built"
# A cache directory that is there is unusable (describe said so above): move it aside, then rename the checked
# binaries into place, so that the directory never holds anything else.
if [[ -e "$dest" ]]; then
	mv "$dest" "$work/replaced"
fi
mv "$work/bin" "$dest"
trap - INT TERM HUP EXIT
# The CPU time of the go commands (and the compilers they ran): on a loaded machine, a better measure of the build's
# cost than the time elapsed. `times` runs in this shell (a subshell would count none of its children).
times >"$work/times"
cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] } printf "%d", s }' "$work/times")
rm -rf "$work"
log "done in $(duration $((SECONDS - build_started))), $(duration "$cpu") of CPU: $built in $dest"
echo "$dest"
