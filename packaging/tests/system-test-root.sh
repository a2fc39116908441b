#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The system test's root of a Debian release, made by debootstrap once and kept where the machine
# keeps it (INTRAPUSH_TEST_CACHE, /var/cache/intrapush-test by default), outside the clone: a fresh
# clone on a machine that ran the test before reuses it. It is named by the release, by what it
# includes and by the day it was made, and made again once it is SYSTEM_TEST_ROOT_DAYS old (30), so
# that it does not drift far from the release's archive; roots twice that age are removed. Each run
# boots it with --volatile=overlay, so nothing a run does reaches the cache; two runs (two clones)
# may share it, and one making it while another does keeps whichever finished first.
# Usage: system-test-root.sh RELEASE   (prints the root's path; root only)
set -euo pipefail
cd "$(dirname "$0")/../.."
release=${1:?usage: system-test-root.sh RELEASE}
cache=${INTRAPUSH_TEST_CACHE:-/var/cache/intrapush-test}/system-test
days=${SYSTEM_TEST_ROOT_DAYS:-30}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# The root is made again when this list changes.
# lintian and autopkgtest: the release's own (Debian's review of a package, and its test runner);
# perl-openssl-defaults provides the virtual perl-openssl-abi-3 that lintian's libnet-ssleay-perl
# needs, which debootstrap does not resolve by itself; debconf-utils: debconf-get-selections;
# unattended-upgrades: how a fleet takes a release from the organisation's APT repository.
include=systemd,systemd-sysv,dbus,dbus-user-session,libsqlite3-0,libsystemd0,procps,sqlite3,acl,python3-dbusmock,lintian,autopkgtest,perl-openssl-defaults,debconf-utils,unattended-upgrades
key=$release-$(printf '%s' "$include" | md5sum | cut -c1-8)
today=$(date -u +%Y%m%d)
oldest=$(date -u -d "$days days ago" +%Y%m%d)

mkdir -p "$cache"
root=""
for candidate in $(ls -d "$cache/$key"-2* 2>/dev/null | sort -r); do
    made=${candidate##*-}
    if [[ -z $root && $made -ge $oldest && -x $candidate/usr/bin/systemctl ]]; then
        root=$candidate
    elif [[ $made -lt $(date -u -d "$((2 * days)) days ago" +%Y%m%d) ]]; then
        rm -rf "$candidate"  # no run still boots a root that old
    fi
done
if [[ -z $root ]]; then
    root=$cache/$key-$today
    scratch=$(mktemp -d "$cache/.$key-XXXXXX")
    trap 'rm -rf "$scratch"' EXIT
    echo "system-test-root: making the $release root with debootstrap (kept in $root)" >&2
    debootstrap --variant=minbase --include="$include" "$release" "$scratch/root" "$mirror" >"$scratch/debootstrap.log" 2>&1 ||
        { tail -20 "$scratch/debootstrap.log" >&2; exit 1; }
    # Another run may have made it meanwhile: keep the first.
    mv -T "$scratch/root" "$root" 2>/dev/null || [[ -d $root ]]
fi
echo "$root"
