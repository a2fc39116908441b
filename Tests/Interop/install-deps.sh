#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what the interop matrix needs, once: the Debian packages of the server stacks and the
# proxies, and a virtual environment with the pinned Python stacks under .build/interop/venv.
set -euo pipefail
cd "$(dirname "$0")/../.."
sudo=""
[[ $(id -u) == 0 ]] || sudo=sudo

packages=(openssl nodejs node-ws golang-go golang-github-gorilla-websocket-dev openjdk-17-jdk-headless
          libjetty9-java libjetty9-extra-java nginx-light haproxy tinyproxy)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    # nginx, HAProxy and tinyproxy start a system service on install: the matrix runs its own, on loopback.
    guard=""
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
        printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
        $sudo chmod 0755 /usr/sbin/policy-rc.d
        guard=/usr/sbin/policy-rc.d
    fi
    trap '[[ -z "$guard" ]] || $sudo rm -f "$guard"' EXIT
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

venv=.build/interop/venv
stamp=$venv/requirements.txt
if ! cmp -s Tests/Interop/requirements.txt "$stamp"; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r Tests/Interop/requirements.txt
    cp Tests/Interop/requirements.txt "$stamp"
fi
