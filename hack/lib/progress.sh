# shellcheck shell=bash
# Lines of progress for the long go commands of the scripts in hack/ (source this file): a line every
# BUILD_PROGRESS_INTERVAL seconds (default 20) while a command runs, and, for go build, how many packages of how many
# are compiled, the time elapsed, an estimate of the time left and the package being compiled. Never a line per
# package: a CI log stays readable.
#
# The sourcing script defines progress(), which prints a line (and may keep it somewhere).

progress_interval=${BUILD_PROGRESS_INTERVAL:-20}
if [[ ! "$progress_interval" =~ ^[1-9][0-9]*$ ]]; then
	echo "BUILD_PROGRESS_INTERVAL must be a whole number of seconds, not '$progress_interval'" >&2
	exit 2
fi

# duration SECONDS prints 7s, 4m05s or 1h02m03s.
duration() {
	local s=$1
	if ((s >= 3600)); then
		printf '%dh%02dm%02ds' $((s / 3600)) $((s % 3600 / 60)) $((s % 60))
	elif ((s >= 60)); then
		printf '%dm%02ds' $((s / 60)) $((s % 60))
	else
		printf '%ds' "$s"
	fi
}

# schedule_next moves the global next (a time in $SECONDS) on by one interval, after a line of progress due then was
# printed: counted from when it was due, not from when it was printed, so that the time a line takes to work out (a
# few seconds on a loaded machine) does not lengthen the gaps. A line printed more than an interval late (a stopped
# or starved shell) starts the count again from now.
schedule_next() {
	next=$((next + progress_interval))
	((next > SECONDS)) || next=$((SECONDS + progress_interval))
}

# watched is the process group of the command watch runs (its pid), empty when none runs.
watched=""

# watch STATUS OUT ERR COMMAND... runs COMMAND with its stdout in OUT and its stderr in ERR and, every
# $progress_interval seconds until it exits, passes to progress() the line the function STATUS prints from ERR.
# Returns COMMAND's exit status. COMMAND runs in a process group of its own (set -m), which stop_watched stops as a
# whole: a go command and the compilers it started, which would otherwise ignore an interrupt (bash starts background
# commands with SIGINT ignored).
watch() {
	local status=$1 out=$2 err=$3 next rc=0
	shift 3
	set -m
	"$@" >"$out" 2>"$err" </dev/null &
	watched=$!
	set +m
	next=$((SECONDS + progress_interval))
	while kill -0 "$watched" 2>/dev/null; do
		if ((SECONDS >= next)); then
			progress "$("$status" "$err")"
			schedule_next
		fi
		sleep 0.5
	done
	wait "$watched" || rc=$?
	watched=""
	return "$rc"
}

# stop_watched stops the command watch runs, if any, and waits for it to exit.
stop_watched() {
	if [[ -n "$watched" ]]; then
		kill -TERM -- "-$watched" 2>/dev/null || true
		wait "$watched" 2>/dev/null || true
		watched=""
	fi
}

# download_status ERR prints how many modules the go command downloaded so far, from its stderr ERR (where it writes
# "go: downloading <module> <version>" for each), and the latest one. It reads the global build_started.
download_status() {
	local n latest
	n=$(grep -c '^go: downloading ' "$1" 2>/dev/null || true)
	if ((${n:-0} == 0)); then
		printf 'listing the packages to compile (and downloading the modules missing), %s elapsed' "$(duration $((SECONDS - build_started)))"
		return
	fi
	latest=$(grep '^go: downloading ' "$1" 2>/dev/null | tail -n 1 | cut -d' ' -f3-)
	printf 'downloading modules: %d so far, %s elapsed; latest %s' "$n" "$(duration $((SECONDS - build_started)))" "$latest"
}

# list_format is the -f template of `go list -deps` whose output to_compile reads.
list_format='{{.ImportPath}} {{.Name}} {{.Stale}} {{len .GoFiles}}'

# to_compile LIST prints, from the output of `go list -deps -f "$list_format"` run with go build's flags, the
# packages go build will compile (those not in the build cache) with a weight for the estimate: their number of Go
# files. Main packages, compiled last, just before linking, are left out.
to_compile() {
	awk '$2 != "main" && $3 == "true" {print $1, $4 + 1}' "$1"
}

# compile_status LOG prints how far `go build -v` (which prints each package it compiles as it starts it, and no
# other) has come, from its output LOG. It reads the globals compile_list (what to_compile printed), compile_what
# (the binaries, for the last line: "linking <compile_what>"), build_started (the time the whole build started, in
# $SECONDS) and compile_started (the time go build started). The estimate of the time left appears once a tenth of
# the work is done.
compile_status() {
	local done total weight_done weight_total latest elapsed left=""
	# One awk for everything: on a loaded machine each command started can wait seconds for a core.
	read -r done total weight_done weight_total latest < <(awk '
		NR == FNR { w[$1] = $2; total += $2; n_total++; next }
		($0 in w) && !($0 in seen) { seen[$0] = 1; n++; done += w[$0]; last = $0 }
		END { print n + 0, n_total + 0, done + 0, total + 0, last }' "$compile_list" "$1")
	elapsed=$((SECONDS - compile_started))
	if ((done >= total)); then
		printf 'linking %s: all %d packages compiled, %s elapsed' "$compile_what" "$total" "$(duration $((SECONDS - build_started)))"
		return
	fi
	if ((weight_done * 10 >= weight_total && elapsed >= 30)); then
		left="; about $(duration $((elapsed * (weight_total - weight_done) / weight_done))) left"
	fi
	printf 'compiling: %d of %d packages, %s elapsed%s%s' "$done" "$total" "$(duration $((SECONDS - build_started)))" "$left" "${latest:+; now $latest}"
}
