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
# comments keep their meaning, since a comment separated from them by a blank line is none of them. Generated files
# get the header too (controller-gen keeps what precedes its output when it runs with a header file). Files under
# .git, bin and vendor directories are skipped; testdata is included.
#
# Usage: hack/license-headers.sh [--check] [DIR]
#   DIR      the tree to work on (default: the repository root)
#   --check  change nothing; print the files that lack the header and exit 1 if there is one
# Adding is idempotent: a file that has the header is left alone.
set -euo pipefail

check=false
dir=""
for arg in "$@"; do
	case "$arg" in
	--check) check=true ;;
	-h | --help)
		sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
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
year=${LICENSE_YEAR:-$(date +%Y)}

# has_header reports whether file $1 starts with the header.
has_header() {
	local first second third
	{
		IFS= read -r first || true
		IFS= read -r second || true
		IFS= read -r third || true
	} <"$1"
	[[ "$first" =~ $copyright_re && "$second" == "$spdx" && -z "$third" ]]
}

missing=0
while IFS= read -r -d '' file; do
	file=${file#./}
	has_header "$file" && continue
	missing=$((missing + 1))
	if [[ "$check" == true ]]; then
		echo "$file"
		continue
	fi
	tmp=$(mktemp "${file}.XXXXXX")
	{
		printf '// Copyright %s The multicluster-runtime Authors.\n%s\n\n' "$year" "$spdx"
		cat "$file"
	} >"$tmp"
	chmod --reference="$file" "$tmp" 2>/dev/null || chmod 644 "$tmp"
	mv "$tmp" "$file"
done < <(find . \( -name .git -o -name bin -o -name vendor \) -prune -o -type f -name '*.go' -print0 | LC_ALL=C sort -z)

if [[ "$check" == true ]]; then
	if ((missing > 0)); then
		echo "license-headers.sh: ${missing} Go file(s) lack the licence header; run hack/license-headers.sh" >&2
		exit 1
	fi
	exit 0
fi
echo "license-headers.sh: added the licence header to ${missing} Go file(s)"
