#!/usr/bin/env bash
# Gives every Go file of the repository the licence header, or (--check) lists the files that lack it.
#
# The header is the file's first two lines, followed by a blank line:
#
#   // Copyright <year> The multicluster-runtime Authors.
#   // SPDX-License-Identifier: Apache-2.0
#
# <year> is the year the header is added (LICENSE_YEAR, default the current year); --check accepts any year.
# Everything that followed stays as it was: build constraints, "Code generated ... DO NOT EDIT." lines and package
# comments keep their meaning, since a comment separated from them by a blank line is none of them.
#
# A file that comes from another project with its own Apache-2.0 licence comment before the package clause (the
# kubebuilder project under test/compat/kubebuilder/testdata) keeps that comment, and gets the line
# "// SPDX-License-Identifier: Apache-2.0" right after it instead of the header.
#
# The files are the Go files git tracks, and those it would track (not ignored); outside a git repository, every Go
# file but those under .git, bin and vendor directories. testdata is included. hack/license_test.go checks the same
# rule on every tracked file, as part of `make test`.
#
# Usage: hack/license-headers.sh [--check] [DIR]
#   DIR      the tree to work on (default: the repository root)
#   --check  change nothing; print the files that lack the header and exit 1 if there is one
# Adding is idempotent: a file that has the header is left alone. A file with an SPDX line the script does not
# recognise as one of the two forms above is reported and left alone, and the script exits 1.
set -euo pipefail

check=false
dir=""
for arg in "$@"; do
	case "$arg" in
	--check) check=true ;;
	-h | --help)
		sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	-*)
		echo "license-headers.sh: unknown flag $arg" >&2
		exit 2
		;;
	*) dir=$arg ;;
	esac
done
dir=${dir:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cd "$dir"

spdx="// SPDX-License-Identifier: Apache-2.0"
copyright_re='^// Copyright [0-9]{4} The multicluster-runtime Authors\.$'
apache="Licensed under the Apache License, Version 2.0"
year=${LICENSE_YEAR:-$(date +%Y)}

# go_files prints the Go files to work on, NUL-terminated, sorted.
go_files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z --cached --others --exclude-standard -- '*.go' | LC_ALL=C sort -zu
	else
		find . \( -name .git -o -name bin -o -name vendor \) -prune -o -type f -name '*.go' -print0 | LC_ALL=C sort -z
	fi
}

# read_file reads file $1 into lines, one element per line, and sets pre to the number of lines before its package
# clause. Everything below works on lines in the shell itself: no process per file, so that the whole repository
# takes seconds.
read_file() {
	mapfile -t lines <"$1"
	pre=${#lines[@]}
	local i
	for ((i = 0; i < ${#lines[@]}; i++)); do
		if [[ "${lines[i]}" =~ ^package[[:space:]] ]]; then
			pre=$i
			return
		fi
	done
}

# prelude_has reports whether a line before the package clause contains $1.
prelude_has() {
	local i
	for ((i = 0; i < pre; i++)); do
		[[ "${lines[i]}" == *"$1"* ]] && return 0
	done
	return 1
}

# has_header reports whether the file read starts with the header, or has another Apache-2.0 licence comment and
# the SPDX line before its package clause.
has_header() {
	if [[ ${#lines[@]} -ge 3 && "${lines[0]}" =~ $copyright_re && "${lines[1]}" == "$spdx" && -z "${lines[2]}" ]]; then
		return 0
	fi
	prelude_has "$apache" || return 1
	local i
	for ((i = 0; i < pre; i++)); do
		[[ "${lines[i]}" == "$spdx" ]] && return 0
	done
	return 1
}

# add_header writes the header into file $1, read before; it fails for a licence comment whose end it cannot find.
add_header() {
	local file=$1
	if ! prelude_has "$apache"; then
		printf '%s\n' "// Copyright $year The multicluster-runtime Authors." "$spdx" "" "${lines[@]}" >"$file"
		return
	fi
	# The SPDX line goes after the comment that holds the licence: after the line that closes its /* */ block, or
	# after the last line of its run of // lines; a blank line separates it from what follows.
	local i at=-1 found=false linecomment=false
	for ((i = 0; i < pre; i++)); do
		if [[ "$found" == false ]]; then
			[[ "${lines[i]}" == *"$apache"* ]] || continue
			found=true
			[[ "${lines[i]}" == //* ]] && linecomment=true
		fi
		if [[ "$linecomment" == true && "${lines[i + 1]-}" != //* ]] ||
			[[ "$linecomment" == false && "${lines[i]}" =~ \*/[[:space:]]*$ ]]; then
			at=$((i + 1))
			break
		fi
	done
	((at >= 0)) || return 1
	local rest=("${lines[@]:at}")
	if [[ ${#rest[@]} -gt 0 && -n "${rest[0]}" ]]; then
		rest=("" "${rest[@]}")
	fi
	printf '%s\n' "${lines[@]:0:at}" "$spdx" "${rest[@]}" >"$file"
}

missing=0
unknown=0
while IFS= read -r -d '' file; do
	file=${file#./}
	[[ -f "$file" ]] || continue # deleted but still in the index
	read_file "$file"
	has_header && continue
	if [[ "$check" == true ]]; then
		missing=$((missing + 1))
		echo "$file"
		continue
	fi
	if prelude_has "SPDX-License-Identifier" || ! add_header "$file"; then
		unknown=$((unknown + 1))
		echo "license-headers.sh: $file has an SPDX line or a licence comment but not the header; fix it by hand" >&2
		continue
	fi
	missing=$((missing + 1))
done < <(go_files)

if [[ "$check" == true ]]; then
	if ((missing > 0)); then
		echo "license-headers.sh: ${missing} Go file(s) lack the licence header; run hack/license-headers.sh" >&2
		exit 1
	fi
	exit 0
fi
echo "license-headers.sh: added the licence header to ${missing} Go file(s)"
((unknown == 0))
