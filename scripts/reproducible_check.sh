#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make reproducible-check: are the packages built bit for bit the same from the same commit?
#
# Builds `make deb` twice from HEAD's sources (git archive), in two other directories of
# different names and depths, one after the other (so at different times), under different
# umasks, locales and time zones, with the same resolved package versions (Package.resolved and
# the checkouts copied, so nothing is fetched). Then compares every .deb byte for byte, prints
# each one's sha256, and, where two differ, names every file inside that differs.
#
# With --here, the first build is this tree's own `make deb` (what `make test` built already: its
# packages are compared as they are when no tracked file is newer than them, else only the
# packaging runs again; CI saves a full build this way), and the tree must have no uncommitted
# change to a tracked file: it then is HEAD's sources, in a third place.
#
# REPRODUCIBLE_MAKE_ARGS: more arguments to the builds' make, e.g. 'PREFIX_MAP_FLAGS=' to plant
# the build path back in and watch the check fail. Exit status 1 on any difference.
set -euo pipefail

cd "$(dirname "$0")/.."
here=$PWD
work=$(mktemp -d /var/tmp/intrapush-reproducible.XXXXXX)
# Kept when the builds differ, to look into; removed otherwise.
trap 'if [[ -z ${keep:-} ]]; then rm -rf "$work"; fi' EXIT
first=$work/first/intrapush
second=$work/elsewhere/a/longer/path/to/the/build

build() {
    local tree=$1 umask_value=$2 locale=$3 zone=$4
    mkdir -p "$tree/.build"
    git -C "$here" archive HEAD | tar -x -C "$tree"
    cp "$here/Package.resolved" "$tree/" 2>/dev/null || true
    cp -a "$here/.build/checkouts" "$here/.build/repositories" "$tree/.build/" 2>/dev/null || true
    [[ -f $here/.build/workspace-state.json ]] && cp "$here/.build/workspace-state.json" "$tree/.build/"
    echo "building in $tree (umask $umask_value, $locale, TZ=$zone)"
    (umask "$umask_value" && cd "$tree" && env LC_ALL="$locale" LANG="$locale" TZ="$zone" \
        make deb ${REPRODUCIBLE_MAKE_ARGS:-} >"$tree.log" 2>&1) || { tail -30 "$tree.log"; exit 1; }
}

if [[ ${1:-} == --here ]]; then
    if [[ -n $(git -C "$here" status --porcelain --untracked-files=no) ]]; then
        echo "reproducible-check --here: this tree has changes that are not committed; commit them, or run it without --here"
        exit 2
    fi
    first=$here
    version=$(dpkg-parsechangelog -l "$here/debian/changelog" -S Version)
    oldest=$(stat -c %Y "$here"/dist/*_"${version}"_*.deb 2>/dev/null | sort -n | head -1)
    newest=$(git -C "$here" ls-files -z | (cd "$here" && xargs -0 stat -c %Y 2>/dev/null) | sort -n | tail -1)
    if [[ -n $oldest && -z ${REPRODUCIBLE_MAKE_ARGS:-} ]] && ((newest <= oldest)); then
        echo "this tree's packages, as make deb built them: no tracked file is newer than they are"
    else
        echo "building in $here (this tree; umask $(umask), ${LC_ALL:-${LANG:-C}}, TZ=${TZ:-UTC})"
        make -C "$here" deb ${REPRODUCIBLE_MAKE_ARGS:-} >"$work/here.log" 2>&1 || { tail -30 "$work/here.log"; exit 1; }
    fi
else
    build "$first" 0022 C.UTF-8 UTC
fi
build "$second" 0077 C Pacific/Kiritimati

version=$(dpkg-parsechangelog -l "$here/debian/changelog" -S Version)
differences=0
for deb in "$first"/dist/*_"${version}"_*.deb; do
    name=$(basename "$deb")
    other=$second/dist/$name
    if [[ ! -f $other ]]; then
        echo "DIFFERENT $name: built only once"
        differences=$((differences + 1))
        continue
    fi
    sum=$(sha256sum <"$deb" | cut -d' ' -f1)
    if [[ $sum == "$(sha256sum <"$other" | cut -d' ' -f1)" ]]; then
        echo "same      $sum  $name"
        continue
    fi
    differences=$((differences + 1))
    echo "DIFFERENT $name"
    rm -rf "$work/x" "$work/y"
    dpkg-deb -R "$deb" "$work/x"
    dpkg-deb -R "$other" "$work/y"
    (cd "$work/x" && find . -type f | sort) >"$work/x.list"
    (cd "$work/y" && find . -type f | sort) >"$work/y.list"
    comm -3 "$work/x.list" "$work/y.list" | sed 's/^\t*/    only in one: /'
    while read -r file; do
        [[ -f $work/y/$file ]] || continue
        cmp -s "$work/x/$file" "$work/y/$file" || echo "    differs: ${file#./}"
    done <"$work/x.list"
done
ls "$second"/dist/*.deb >/dev/null 2>&1 || { echo "no package was built"; exit 1; }
if ((differences > 0)); then
    keep=1
    echo "reproducible-check: $differences package(s) differ between the two builds (both kept in $work)"
    exit 1
fi
echo "reproducible-check: every package is identical in both builds"
