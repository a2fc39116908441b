#!/usr/bin/env bash
# The packages of the release before this one (0.3.0-1), built once from its commit into
# .build/previous/, for the system test's upgrade from a real installation of it. A second full
# build: .ci/run makes it; `make test` uses it when it is there.
# Usage: previous_deb.sh   (prints the path of the intrapush package)
set -euo pipefail
cd "$(dirname "$0")/.."
commit=1c45863   # the last commit of 0.3.0-1
version=0.3.0-1
arch=$(dpkg --print-architecture)
out=$PWD/.build/previous
deb=$out/intrapush_${version}_${arch}.deb
if [[ ! -f $deb ]]; then
    # A shallow clone (CI's, say) may lack it: fetch the history once.
    git cat-file -e "$commit^{commit}" 2>/dev/null || timeout 300 git fetch --quiet --unshallow 2>/dev/null || true
    git cat-file -e "$commit^{commit}" 2>/dev/null || { echo "previous-deb: commit $commit is not in this clone" >&2; exit 1; }
    rm -rf "$out/source" && mkdir -p "$out/source"
    git archive "$commit" | tar -x -C "$out/source"
    echo "previous-deb: building $version from $commit in $out/source (a full release build)" >&2
    make -C "$out/source" deb >"$out/build.log" 2>&1 || { tail -30 "$out/build.log" >&2; exit 1; }
    cp "$out/source/dist/intrapush_${version}_${arch}.deb" "$deb"
    rm -rf "$out/source"
fi
echo "$deb"
