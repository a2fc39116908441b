#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The organisation's APT repository of intrapush (make repo): the packages, for Debian 12
# (bookworm) and 13 (trixie), in a repository reprepro keeps and signs with the organisation's
# OpenPGP key, ready to be copied to any static web server of the intranet.
#
# Usage: make_repo.sh --key FINGERPRINT [--state DIR] [--out DIR] PACKAGE.deb...
#   --key    the signing key's fingerprint, in the gpg keyring of GNUPGHOME (or ~/.gnupg); its
#            secret part signs, and its public part is written beside the repository
#   --state  reprepro's configuration and database (.build/repo): keep it from release to release,
#            it is what knows the repository's contents
#   --out    what to publish (dist/apt): dists/, pool/ and intrapush-archive-keyring.gpg
#
# One build serves both releases: the binaries link the Swift runtime statically and ask only for
# libraries both releases have (the system test installs the same package on each). A release is
# published once: the same version with other contents is refused (reprepro's own check), so a
# host never sees a version change under it. Debug symbols (-dbgsym) are left out, as Debian keeps
# them in a separate archive.
set -euo pipefail

codenames=(bookworm trixie)
key="" state=.build/repo out=dist/apt
debs=()
while (($#)); do
    case $1 in
        --key) key=$2; shift 2 ;;
        --state) state=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -*) echo "make_repo.sh: unknown option $1" >&2; exit 64 ;;
        *) debs+=("$1"); shift ;;
    esac
done
if [[ -z $key ]]; then
    cat >&2 <<'EOF'
make repo: no signing key: give the fingerprint of the organisation's repository key,
  make repo REPO_KEY=FINGERPRINT
To make one (kept by whoever publishes releases; its public part goes to every host):
  gpg --quick-generate-key 'Example Corp intrapush repository <it@example.com>' ed25519 sign 3y
  gpg --list-secret-keys --with-colons | awk -F: '$1 == "fpr" { print $10; exit }'
EOF
    exit 64
fi
((${#debs[@]})) || { echo "make_repo.sh: no package given" >&2; exit 64; }
command -v reprepro >/dev/null || { echo "make_repo.sh: reprepro is missing (apt-get install reprepro)" >&2; exit 69; }
if ! gpg --batch --list-secret-keys "$key" >/dev/null 2>&1; then
    echo "make repo: the key $key is not in the keyring${GNUPGHOME:+ of $GNUPGHOME} with its secret part" >&2
    exit 65
fi

mkdir -p "$state/conf" "$out"
# Origin and Label are what a host's unattended-upgrades names (docs/operating.md).
for codename in "${codenames[@]}"; do
    cat <<EOF
Origin: intrapush
Label: intrapush
Codename: $codename
Architectures: $(dpkg --print-architecture)
Components: main
Description: intrapush for Debian $codename
SignWith: $key

EOF
done >"$state/conf/distributions"
printf 'outdir %s\n' "$(realpath "$out")" >"$state/conf/options"

for deb in "${debs[@]}"; do
    [[ $deb == *-dbgsym_* ]] && continue
    for codename in "${codenames[@]}"; do
        reprepro --silent -b "$state" includedeb "$codename" "$deb"
    done
done
# Signed anew whether or not anything changed, so that a new key takes over at once.
reprepro --silent -b "$state" export
gpg --batch --yes --export "$key" >"$out/intrapush-archive-keyring.gpg"
echo "make repo: $out, signed by $key: $(reprepro -b "$state" list bookworm | sed 's/^[^:]*: //' | paste -sd, -)"
