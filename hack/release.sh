#!/usr/bin/env bash
# Cuts a release of this repository: checks that the tree is ready, points the provider modules at the core
# module's new version in a release commit, and tags the core module and every provider module with the version.
# It never pushes: it prints the command that does. The procedure around it is docs/contributing/releasing.md.
#
# Usage: hack/release.sh [--skip-tests] vX.Y.Z
#   vX.Y.Z        the version: its minor is controller-runtime's (v0.25.x for controller-runtime v0.25), as for the
#                 reference implementation; a pre-release (v0.25.0-rc.1) is allowed
#   --skip-tests  do not run `make test` (for the script's own test; a real release runs them)
#
# It refuses, changing nothing, unless:
#   - the branch is main (or release-X.Y for a patch of an older line) and the working tree is clean;
#   - the version's minor is that of controller-runtime in the core module's go.mod;
#   - no module has the version's tag yet;
#   - CHANGELOG.md has a section for the version ("## [vX.Y.Z]");
#   - every module is tidy (`go mod tidy -diff`) and `make test` passes.
#
# Tagged (published) modules: the core module (tag vX.Y.Z) and every module under providers/ (tag
# providers/<name>/vX.Y.Z). The examples, hack/demo, bench and test modules are not published and get no tag.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

core=sigs.k8s.io/multicluster-runtime

die() {
	echo "release.sh: $*" >&2
	exit 1
}

usage() {
	sed -n '6,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

skip_tests=false
version=""
for arg in "$@"; do
	case "$arg" in
	--skip-tests) skip_tests=true ;;
	-h | --help)
		usage
		exit 0
		;;
	-*) die "unknown flag $arg" ;;
	*)
		[[ -z "$version" ]] || die "one version only (got $version and $arg)"
		version=$arg
		;;
	esac
done
[[ -n "$version" ]] || {
	usage >&2
	exit 2
}

[[ "$version" =~ ^v([0-9]+)\.([0-9]+)\.([0-9]+)(-[0-9A-Za-z.-]+)?$ ]] ||
	die "$version is not a semantic version vMAJOR.MINOR.PATCH"
line="v${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"

# published_modules prints the directories of the modules that are tagged, the core module (.) first.
published_modules() {
	echo "."
	find providers -mindepth 2 -maxdepth 2 -name go.mod -printf '%h\n' | LC_ALL=C sort
}

# tag_of prints the tag of version for the module in directory $1.
tag_of() {
	if [[ "$1" == "." ]]; then echo "$version"; else echo "$1/$version"; fi
}

# The version follows controller-runtime's minor.
cr=$(GOWORK=off go list -m -f '{{.Version}}' sigs.k8s.io/controller-runtime) ||
	die "cannot read controller-runtime's version from go.mod"
[[ "$cr" =~ ^(v[0-9]+\.[0-9]+)\. ]] || die "cannot parse controller-runtime's version $cr"
[[ "${BASH_REMATCH[1]}" == "$line" ]] ||
	die "$version does not follow controller-runtime $cr: this line's versions are ${BASH_REMATCH[1]}.x"

branch=$(git symbolic-ref --quiet --short HEAD) || die "HEAD is detached: check out main"
[[ "$branch" == main || "$branch" == "release-${line#v}" ]] ||
	die "on branch $branch: releases are cut from main (or release-${line#v} for a patch of an older line)"

[[ -z "$(git status --porcelain)" ]] || die "the working tree is not clean:
$(git status --short)"

mapfile -t modules < <(published_modules)
for mod in "${modules[@]}"; do
	tag=$(tag_of "$mod")
	if git rev-parse --quiet --verify "refs/tags/$tag" >/dev/null; then
		die "tag $tag exists already"
	fi
done

grep -Eq "^## \[${version//./\\.}\]" CHANGELOG.md ||
	die "CHANGELOG.md has no section for $version: rename Unreleased to \"## [$version] - $(date -u +%F)\" and commit it first"

echo "checking that every module is tidy"
while read -r mod; do
	(cd "$mod" && GOWORK=off go mod tidy -diff >/dev/null) || die "module $mod is not tidy: run make tidy and commit"
done < <(hack/test-all-modules.sh --list)

if [[ "$skip_tests" == false ]]; then
	echo "running make test"
	make test </dev/null || die "make test failed"
fi

# The release commit: every published module that requires another published module requires it at this version.
# The replace directives to the working tree stay, so that the repository keeps building from itself; a module
# that depends on a release ignores them (replace directives apply in the main module only).
echo "pointing the provider modules at $version"
for mod in "${modules[@]}"; do
	[[ "$mod" == "." ]] && continue
	# The requirements of go.mod (one per line, in or out of a require block) on the published modules.
	required=$(sed -nE "s#^[[:space:]]*(require[[:space:]]+)?(${core//./\\.}(/providers/[^[:space:]]+)?)[[:space:]]+v.*#\\2#p" "$mod/go.mod")
	for dep in $required; do
		(cd "$mod" && go mod edit -require="$dep@$version")
	done
done
if [[ -n "$(git status --porcelain)" ]]; then
	for mod in "${modules[@]}"; do
		(cd "$mod" && GOWORK=off go mod tidy -diff >/dev/null) || die "module $mod is not tidy after the release edit"
	done
	git add -- providers
	git commit --quiet -m "Release $version: the provider modules require the core module at $version"
	echo "committed $(git rev-parse --short HEAD): the provider modules require $version"
fi

tags=()
for mod in "${modules[@]}"; do
	tag=$(tag_of "$mod")
	git tag -a "$tag" -m "multicluster-runtime $tag"
	tags+=("$tag")
	echo "tagged $tag"
done

echo
echo "Release $version is tagged on $(git rev-parse --short HEAD). Nothing was pushed; to publish it:"
echo
echo "  git push origin $branch ${tags[*]}"
