# SPDX-License-Identifier: Apache-2.0
# Sourced by system-test.sh: intrapush installed and upgraded as a fleet's hosts take it, from the
# organisation's signed APT repository (make repo: scripts/make_repo.sh), served over HTTP, with
# docs/operating.md's files (packaging/apt/): the .sources file whose Signed-By names the key, and
# unattended-upgrades' origin. apt's signature check stays on throughout; a repository signed
# with another key must be refused. The container's own Debian sources are removed first: the
# test needs no network, and the package's dependencies are in the root.

repo_server_pid=""
# Made on the host, in the test's scratch: the organisation's key and a stranger's.
repo_keys() {
    export GNUPGHOME=$scratch/gnupg
    mkdir -m 0700 "$GNUPGHOME"
    local who
    for who in organisation stranger; do
        gpg --batch --quiet --passphrase '' --quick-generate-key "intrapush test $who <$who@test.invalid>" \
            ed25519 sign 1d 2>/dev/null
        gpg --batch --list-secret-keys --with-colons "$who@test.invalid" |
            awk -F: '$1 == "fpr" { print $10; exit }' >"$scratch/$who.fpr"
    done
}
# make_test_repo NAME KEY-OWNER DEB...: the repository www/NAME, signed by that key.
make_test_repo() {
    local name=$1 owner=$2
    shift 2
    scripts/make_repo.sh --key "$(cat "$scratch/$owner.fpr")" --state "$scratch/repo-state-$name" \
        --out "$scratch/www/$name" "$@" >/dev/null
}
repo_serve() {
    mkdir -p "$scratch/www"
    repo_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    python3 -m http.server --bind 127.0.0.1 --directory "$scratch/www" "$repo_port" >"$scratch/www.log" 2>&1 &
    repo_server_pid=$!
    await 100 "the repository's web server" curl -fsS -o /dev/null "http://127.0.0.1:$repo_port/"
}
# repo_source NAME: this host's .sources file names the repository www/NAME, keyed as operating.md says.
repo_source() {
    sed -e "s|^URIs: .*|URIs: http://127.0.0.1:$repo_port/$1|" -e "s|^Suites: .*|Suites: $release|" \
        packaging/apt/intrapush.sources >"$(ct_path /etc/apt/sources.list.d/intrapush.sources)"
}
# Under set -e, a failing command after && ends the script: each stop says "|| true".
repo_stop() {
    if [[ -n $repo_server_pid ]]; then kill "$repo_server_pid" 2>/dev/null || true; fi
    if [[ -n ${GNUPGHOME:-} ]]; then gpgconf --kill all 2>/dev/null || true; fi
}

# The first installation of the run: refused from a repository signed by another key, then taken
# from the organisation's. Leaves the install's output in repo_install_output.
repo_install_checks() {
    repo_keys
    make_test_repo org organisation "$scratch/test/intrapush.deb" "$scratch/test/intrapush-notifier.deb"
    make_test_repo forged stranger "$scratch/test/intrapush.deb" "$scratch/test/intrapush-notifier.deb"
    repo_serve
    inside rm -f /etc/apt/sources.list /etc/apt/sources.list.d/debian.sources
    inside mkdir -p /etc/apt/keyrings
    install -m 0644 "$scratch/www/org/intrapush-archive-keyring.gpg" \
        "$(ct_path /etc/apt/keyrings/intrapush-archive-keyring.gpg)"

    local status=0 output
    repo_source forged
    output=$(inside apt-get update 2>&1) || status=$?
    check "a repository signed by another key: apt-get update fails (status $status)" test "$status" != 0
    check "a repository signed by another key: apt says the signature could not be verified" \
        grep -qiE "NO_PUBKEY|not signed|couldn't be verified|Missing key|Signature by key .* not allowed" <<<"$output"
    [[ $status != 0 ]] || tail -5 <<<"$output" | sed 's/^/      /'
    status=0
    inside apt-get install -y -q intrapush >/dev/null 2>&1 || status=$?
    check "a repository signed by another key: nothing of it can be installed" \
        test "$status/$(inside dpkg-query -W -f '${Status}' intrapush 2>/dev/null || true)" != "0/install ok installed"

    repo_source org
    inside rm -rf /var/lib/apt/lists/127.0.0.1*
    status=0
    output=$(inside apt-get update 2>&1) || status=$?
    check "the organisation's repository: apt-get update verifies its signature (status $status)" test "$status" = 0
    [[ $status == 0 ]] || tail -5 <<<"$output" | sed 's/^/      /'
    check_that "the organisation's repository: intrapush $version is its candidate" \
        "inside apt-cache policy intrapush | grep -F 'Candidate: $version' >/dev/null"
    repo_install_output=$(inside env DEBIAN_FRONTEND=noninteractive apt-get install -y -q intrapush 2>&1) ||
        fail "apt-get install intrapush from the repository: $repo_install_output"
    check "installed from the organisation's repository: $version" \
        test "$(inside dpkg-query -W -f '${Version}' intrapush)" = "$version"
}

# The next version published to the same repository; the host's unattended-upgrades, configured as
# operating.md says and nothing more, takes it.
repo_upgrade() {
    make_test_repo org organisation "$scratch/test/intrapush-next.deb"
    inside apt-get update -q >/dev/null 2>&1 || fail "apt-get update after the next release was published"
    install -m 0644 packaging/apt/52intrapush-unattended-upgrades \
        "$(ct_path /etc/apt/apt.conf.d/52intrapush-unattended-upgrades)"
    local output
    output=$(inside unattended-upgrade -v 2>&1) || fail "unattended-upgrade: $(tail -5 <<<"$output")"
    grep -q "Packages that will be upgraded: intrapush" <<<"$output" ||
        tail -8 <<<"$output" | sed 's/^/      /'
    # The later stages install older packages by hand: no timer of apt's may take them back up.
    rm "$(ct_path /etc/apt/apt.conf.d/52intrapush-unattended-upgrades)"
}
