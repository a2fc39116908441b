#!/usr/bin/env bash
# The packages of the releases before this one, each built once from its commit into
# .build/previous/, for the system test's upgrades from real installations of them. Full
# release builds: .ci/run makes them; `make test` uses those that are there.
# Usage: previous_deb.sh [VERSION...]   (default: every release below; prints each package's path)
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A commits=(
    [0.3.0-1]=1c45863   # the last commit of 0.3.0-1
    [0.4.0-1]=250bbcd   # the last commit of 0.4.0-1
)
versions=("$@")
((${#versions[@]})) || versions=(0.3.0-1 0.4.0-1)
arch=$(dpkg --print-architecture)
out=$PWD/.build/previous
for version in "${versions[@]}"; do
    commit=${commits[$version]:?"previous-deb: no commit known for $version"}
    deb=$out/intrapush_${version}_${arch}.deb
    if [[ ! -f $deb ]]; then
        # A shallow clone (CI's, say) may lack it: fetch the history once.
        git cat-file -e "$commit^{commit}" 2>/dev/null || timeout 300 git fetch --quiet --unshallow 2>/dev/null || true
        git cat-file -e "$commit^{commit}" 2>/dev/null || { echo "previous-deb: commit $commit is not in this clone" >&2; exit 1; }
        rm -rf "$out/source" && mkdir -p "$out/source"
        git archive "$commit" | tar -x -C "$out/source"
        echo "previous-deb: building $version from $commit in $out/source (a full release build)" >&2
        make -C "$out/source" deb >"$out/build-$version.log" 2>&1 || { tail -30 "$out/build-$version.log" >&2; exit 1; }
        cp "$out/source/dist/intrapush_${version}_${arch}.deb" "$deb"
        rm -rf "$out/source"
    fi
    echo "$deb"
done
