#!/usr/bin/env bash
# Prints the Debian Depends: of the given ELF binaries, e.g.
#   libc6 (>= 2.34), libgcc-s1 (>= 3.0), libsqlite3-0 (>= 3.7.15), libstdc++6 (>= 5.2), libsystemd0
# With dpkg-shlibdeps (dpkg-dev) the versions are the real minimums; without it each NEEDED
# library of `readelf -d` is mapped to its package by name, and an unknown library is an error.
set -euo pipefail

(($# > 0)) || { echo "usage: $0 BINARY..." >&2; exit 2; }
binaries=()
for binary in "$@"; do binaries+=("$(realpath "$binary")"); done

if command -v dpkg-shlibdeps >/dev/null; then
    # dpkg-shlibdeps insists on a debian/control; a throwaway one is enough.
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    mkdir "$scratch/debian"
    printf 'Source: intrapush\n\nPackage: intrapush\nArchitecture: any\n' >"$scratch/debian/control"
    depends=$(cd "$scratch" && dpkg-shlibdeps -O "${binaries[@]/#/-e}" | sed -n 's/^shlibs:Depends=//p')
    # Packed relative relocations (make's lld flags) need the loader of glibc 2.36, which the
    # version GLIBC_ABI_DT_RELR marks; libc6's symbols file does not know it.
    if [[ $(readelf -V "${binaries[@]}") == *GLIBC_ABI_DT_RELR* ]]; then
        depends=$(sed -E 's/libc6 \(>= 2\.(3[0-5]|[12][0-9]|[0-9])(\.[0-9]+)?\)/libc6 (>= 2.36)/' <<<"$depends")
    fi
    echo "$depends"
    exit 0
fi

readelf -d "${binaries[@]}" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u |
    while read -r library; do
        case $library in
            libc.so.6 | libm.so.6 | libdl.so.2 | libpthread.so.0 | librt.so.1 | libutil.so.1 | ld-linux*) echo libc6 ;;
            libgcc_s.so.1) echo libgcc-s1 ;;
            libstdc++.so.6) echo libstdc++6 ;;
            libsqlite3.so.0) echo libsqlite3-0 ;;
            libsystemd.so.0) echo libsystemd0 ;;
            libz.so.1) echo zlib1g ;;
            *) echo "depends.sh: no package known for $library; add it here" >&2; exit 1 ;;
        esac
    done | sort -u | paste -sd, - | sed 's/,/, /g'
