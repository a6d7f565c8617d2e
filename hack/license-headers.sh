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

# prelude prints the lines of file $1 before its package clause.
prelude() {
	awk '/^package[ \t]/ { exit } { print }' "$1"
}

# has_header reports whether file $1 starts with the header, or has another Apache-2.0 licence comment and the
# SPDX line before its package clause.
has_header() {
	local first second third
	{
		IFS= read -r first || true
		IFS= read -r second || true
		IFS= read -r third || true
	} <"$1"
	if [[ "$first" =~ $copyright_re && "$second" == "$spdx" && -z "$third" ]]; then
		return 0
	fi
	local head
	head=$(prelude "$1")
	[[ "$head" == *"$apache"* ]] && grep -qxF -- "$spdx" <<<"$head"
}

# add_header writes the header into file $1.
add_header() {
	local file=$1 tmp
	tmp=$(mktemp "${file}.XXXXXX")
	if [[ "$(prelude "$file")" == *"$apache"* ]]; then
		# The SPDX line goes after the comment that holds the licence: the line that closes its /* */ block, or the
		# last line of its run of // lines; a blank line separates it from what follows.
		awk -v spdx="$spdx" -v apache="$apache" '
			blank { blank = 0; if ($0 != "") print "" }
			!done && found && linecomment && !/^\/\// { print spdx; if ($0 != "") print ""; done = 1 }
			!done && /^package[ \t]/ { done = 1 }
			{ print }
			!done && !found && index($0, apache) { found = 1; linecomment = ($0 ~ /^\/\//) }
			!done && found && !linecomment && /\*\/[ \t]*$/ { print spdx; done = 1; blank = 1 }
		' "$file" >"$tmp"
	else
		{
			printf '// Copyright %s The multicluster-runtime Authors.\n%s\n\n' "$year" "$spdx"
			cat "$file"
		} >"$tmp"
	fi
	chmod --reference="$file" "$tmp" 2>/dev/null || chmod 644 "$tmp"
	mv "$tmp" "$file"
}

missing=0
unknown=0
while IFS= read -r -d '' file; do
	file=${file#./}
	[[ -f "$file" ]] || continue # deleted but still in the index
	has_header "$file" && continue
	if [[ "$check" == true ]]; then
		missing=$((missing + 1))
		echo "$file"
		continue
	fi
	if prelude "$file" | grep -q 'SPDX-License-Identifier'; then
		unknown=$((unknown + 1))
		echo "license-headers.sh: $file has an SPDX line but not the header; fix it by hand" >&2
		continue
	fi
	missing=$((missing + 1))
	add_header "$file"
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
