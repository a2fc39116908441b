#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The packages of the releases before this one, for the system test's upgrades from real
# installations of them, in .build/previous/. Each is a full release build of its commit, made
# once and kept outside the clone where the machine keeps it (INTRAPUSH_TEST_CACHE,
# /var/cache/intrapush-test by default; ~/.cache/intrapush-test when not root), named by its
# commit: a fresh clone on a machine that built them before copies them. .ci/run makes them
# (PREVIOUS_RELEASES, default every release below); `make test` takes those the machine kept
# (--kept: builds none).
# Usage: previous_deb.sh [--kept] [VERSION...]   (prints each package's path)
set -euo pipefail
kept_only=""
[[ ${1:-} == --kept ]] && { kept_only=1; shift; }
cd "$(dirname "$0")/.."
declare -A commits=(
    [0.3.0-1]=1c45863   # the last commit of 0.3.0-1
    [0.4.0-1]=250bbcd   # the last commit of 0.4.0-1
    [0.5.0-1]=f256b88   # the last commit of 0.5.0-1
    [0.6.0-1]=fbab56d   # the last commit of 0.6.0-1
)
versions=("$@")
((${#versions[@]})) || read -ra versions <<<"${PREVIOUS_RELEASES:-0.3.0-1 0.4.0-1 0.5.0-1 0.6.0-1}"
arch=$(dpkg --print-architecture)
out=$PWD/.build/previous
if [[ $(id -u) == 0 ]]; then kept=${INTRAPUSH_TEST_CACHE:-/var/cache/intrapush-test}/previous
else kept=${INTRAPUSH_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/intrapush-test}/previous; fi
# Every release is built in the same tree, in turn, keeping its .build and with the same flags
# (the old releases' own differ), so that the second reuses what the first compiled of the
# packages they both depend on: only our own targets are compiled again. The flags are the
# release build's, without the reproducible-build ones, which need not hold for these fixtures.
flags="-c release --static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker --no-export-dynamic -Xlinker -z -Xlinker pack-relative-relocs"
tree=$out/source
for version in "${versions[@]}"; do
    commit=${commits[$version]:?"previous-deb: no commit known for $version"}
    deb=$out/intrapush_${version}_${arch}.deb
    keep=$kept/$commit/intrapush_${version}_${arch}.deb
    if [[ ! -f $deb && -f $keep ]]; then
        mkdir -p "$out" && cp "$keep" "$deb"
        echo "previous-deb: $version from $keep" >&2
    fi
    if [[ ! -f $deb && -n $kept_only ]]; then
        echo "previous-deb: $version: none kept in $kept (make ci builds it)" >&2
        continue
    fi
    if [[ ! -f $deb ]]; then
        # A shallow clone (CI's, say) may lack it: fetch the history once.
        git cat-file -e "$commit^{commit}" 2>/dev/null || timeout 300 git fetch --quiet --unshallow 2>/dev/null || true
        git cat-file -e "$commit^{commit}" 2>/dev/null || { echo "previous-deb: commit $commit is not in this clone" >&2; exit 1; }
        mkdir -p "$tree"
        find "$tree" -mindepth 1 -maxdepth 1 ! -name .build -exec rm -rf {} +
        git archive "$commit" | tar -x -C "$tree"
        echo "previous-deb: building $version from $commit in $tree (a release build)" >&2
        make -C "$tree" deb RELEASE_FLAGS="$flags" >"$out/build-$version.log" 2>&1 \
            || { tail -30 "$out/build-$version.log" >&2; exit 1; }
        cp "$tree/dist/intrapush_${version}_${arch}.deb" "$deb"
        mkdir -p "${keep%/*}" && cp "$deb" "$keep.new" && mv "$keep.new" "$keep" || true
    fi
    echo "$deb"
done
rm -rf "$tree"
