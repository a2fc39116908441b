#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make check` as a newcomer meets it: a fresh Debian 12 (debootstrap's minbase) with only what
# swift.org's instructions for Debian 12 install, plus git and make, and the Swift toolchain
# (SWIFT_ROOT, /opt/swift by default, bound read-only), entered with chroot; a fresh clone of HEAD; then ROUNDS runs of
# `make check` in a row (3), each timed, the first one building. Everything else make check needs
# it must install itself. Prints one line per run and exits 1 if any failed. Root only
# (debootstrap, chroot, mount); the root is made anew each time, in a scratch directory.
# Usage: fresh-machine-check.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
swift_root=${SWIFT_ROOT:-/opt/swift}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# swift.org's list for Debian 12 (https://www.swift.org/install/linux/debian/12/; its binutils-gold is
# binutils there), and git and make.
swift_deps=binutils,libicu-dev,libcurl4-openssl-dev,libedit-dev,libsqlite3-0,libncurses-dev,libpython3-dev,libxml2-dev,pkg-config,uuid-dev,tzdata,git,gcc,libstdc++-12-dev,ca-certificates,make

[[ $EUID == 0 ]] || { echo "fresh-machine-check: skipped: debootstrap and chroot need root"; exit 0; }
[[ -x $swift_root/usr/bin/swift ]] || { echo "fresh-machine-check: no Swift toolchain in $swift_root (SWIFT_ROOT=)" >&2; exit 1; }
scratch=$(mktemp -d "${TMPDIR:-/var/tmp}/intrapush-fresh.XXXXXX")
trap 'rm -rf "$scratch"' EXIT  # until the mounts, below

echo "fresh-machine-check: debootstrap bookworm (minbase) with swift.org's dependencies"
debootstrap --variant=minbase --include="$swift_deps" bookworm "$scratch/root" "$mirror" >"$scratch/debootstrap.log" 2>&1 ||
    { tail -20 "$scratch/debootstrap.log" >&2; exit 1; }
# A machine id and /etc/hosts, as every installed Debian has (the daemon derives the host's
# identity from the one; localhost resolves through the other).
systemd-machine-id-setup --root="$scratch/root" >/dev/null 2>&1 || dbus-uuidgen >"$scratch/root/etc/machine-id"
printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$scratch/root/etc/hosts"
cp /etc/resolv.conf "$scratch/root/etc/resolv.conf"
# The machine's way to the Swift packages (a local mirror of the github.com addresses, as CI's
# machines have it), where there is one.
mounts=(/proc /sys /dev /dev/pts /dev/shm)
binds=("$swift_root:/opt/swift")
if [[ -d /opt/swift-packages ]]; then
    binds+=(/opt/swift-packages:/opt/swift-packages)
    cp /etc/gitconfig "$scratch/root/etc/gitconfig"
    [[ -f /etc/gitignore ]] && cp /etc/gitignore "$scratch/root/etc/gitignore"
fi
git clone -q "file://$PWD" "$scratch/root/src/intrapush"
git -C "$scratch/root/src/intrapush" log --oneline -1

# A chroot, not a container: the machine's own kernel interfaces, capabilities and network, only
# its files fresh (systemd-nspawn's sandbox refused a socket option the tests' clients set).
mounted=()
unmount() {
    local index
    for ((index = ${#mounted[@]} - 1; index >= 0; index--)); do umount -l "${mounted[index]}" 2>/dev/null || true; done
    # And what the tests mounted inside (ip netns's /run/netns), deepest first.
    for mount in $(awk -v under="$scratch/" 'index($2, under) == 1 { print $2 }' /proc/mounts | sort -r); do
        umount -l "$mount" 2>/dev/null || true
    done
    # Never remove through a mount still there (/dev is the machine's own).
    if grep -qF " $scratch/" /proc/mounts; then
        echo "fresh-machine-check: $scratch is still mounted on; left in place" >&2
    else
        rm -rf "$scratch"
    fi
}
trap unmount EXIT
# The root a mount point of its own, as / is on a machine (ip netns exec remounts / as a slave).
mount --bind "$scratch/root" "$scratch/root" && mounted+=("$scratch/root")
for mount in "${mounts[@]}"; do
    mkdir -p "$scratch/root$mount"
    mount --bind "$mount" "$scratch/root$mount" && mounted+=("$scratch/root$mount")
done
for bind in "${binds[@]}"; do
    mkdir -p "$scratch/root${bind#*:}"
    mount --bind -o ro "${bind%%:*}" "$scratch/root${bind#*:}" && mounted+=("$scratch/root${bind#*:}")
done
mount -t tmpfs tmpfs "$scratch/root/tmp" && mounted+=("$scratch/root/tmp")

in_root() {
    chroot "$scratch/root" env -i HOME=/root LANG=C.UTF-8 PATH=/opt/swift/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        sh -c 'cd /src/intrapush && exec "$@"' sh "$@"
}
failed=0
for ((round = 1; round <= rounds; round++)); do
    started=$(date +%s)
    status=0
    in_root make check >"$scratch/check-$round.log" 2>&1 || status=$?
    took=$(($(date +%s) - started))
    build=$(awk -F'\t' '$1 == "swift-build" { printf "%d", $4 }' "$scratch/root/src/intrapush/.build/stages/times.tsv" 2>/dev/null || true)
    printf 'fresh-machine-check: make check %d of %d: %s in %d:%02d (the build %s s of it; after it %d:%02d)\n' \
        "$round" "$rounds" "$([[ $status == 0 ]] && echo passed || echo "FAILED ($status)")" $((took / 60)) $((took % 60)) \
        "${build:-?}" $(((took - ${build:-0}) / 60)) $(((took - ${build:-0}) % 60))
    if [[ $status != 0 ]]; then
        failed=1
        grep -E "FAILED|✘|Fatal error|error:" "$scratch/check-$round.log" | tail -20 || true
        tail -15 "$scratch/check-$round.log"
    fi
    sed -n '/== make check: the stages/,$p' "$scratch/check-$round.log" | sed 's/^/    /' || true
done
exit $failed
