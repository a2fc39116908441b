# SPDX-License-Identifier: Apache-2.0
# Sourced by system-test.sh: TLS unless said otherwise. A fleet's fresh install, preseeded with
# a server by name and port only (push1.corp.example, which the container's /etc/hosts points at
# this machine), reaches it with wss through a TLS front (tls_relay.py) whose certificate is from
# the test's private CA, named in ca_file; and the same preseeding with ws:// writes tls = false.
# The upgrades from the releases before (system-test-upgrade.sh) name the server the same way, so
# that their configuration relies on the old default, tls = false.

server_name=push1.corp.example
relay_pid=""

name_the_server() {
    inside sh -c "grep -q ' $server_name\$' /etc/hosts || echo '127.0.0.1 $server_name' >>/etc/hosts"
}

# The test's private CA, and the front's certificate for the server's name, signed by it.
start_tls_front() {
    local pki=$scratch/pki
    mkdir -p "$pki"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=intrapush test CA" -days 2 \
        -keyout "$pki/ca.key" -out "$pki/ca.pem" 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$server_name" \
        -keyout "$pki/server.key" -out "$pki/server.csr" 2>/dev/null
    openssl x509 -req -in "$pki/server.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" -CAcreateserial -days 2 \
        -extfile <(printf 'subjectAltName=DNS:%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$server_name") \
        -out "$pki/server.pem" 2>/dev/null
    : >"$scratch/relay.out"
    python3 packaging/tests/tls_relay.py --to "$address" --cert "$pki/server.pem" --key "$pki/server.key" \
        >"$scratch/relay.out" 2>"$scratch/relay.log" &
    relay_pid=$!
    await 100 "the TLS front" grep -q '^listening on ' "$scratch/relay.out"
    relay_port=$(sed -n 's/^listening on .*://p' "$scratch/relay.out")
}
# Under set -e, a failing command after && ends the script: each stop says "|| true".
stop_tls_front() {
    if [[ -n $relay_pid ]]; then kill "$relay_pid" 2>/dev/null || true; fi
    relay_pid=""
}

tls_default_checks() {
    local token output status
    token=$(cat "$scratch/token")
    name_the_server
    start_tls_front
    inside apt-get purge -y -q intrapush >/dev/null 2>&1 || fail "apt-get purge before the TLS install"
    inside rm -rf /etc/intrapush
    # The site's drop-in and its CA, put in place by the fleet's tool before the package.
    inside mkdir -p /etc/intrapush/intrapush.conf.d
    install -m 0644 "$scratch/pki/ca.pem" "$(ct_path /etc/intrapush/ca.pem)"
    printf 'ca_file = "/etc/intrapush/ca.pem"\n' >"$(ct_path /etc/intrapush/intrapush.conf.d/50-site.conf)"
    preseed "intrapush intrapush/servers string $server_name:$relay_port" "intrapush intrapush/org string acme" \
        "intrapush intrapush/token password $token"
    output=$(inside env DEBIAN_FRONTEND=noninteractive apt-get install -y -q /mnt/test/intrapush.deb 2>&1 </dev/null) ||
        fail "apt-get install, preseeded with $server_name: $(tail -5 <<<"$output")"
    await 200 "the daemon to connect through TLS" connected
    check "preseeded with a name and a port only: connected with wss, the private CA named in ca_file" \
        grep -q "^connected to $server_name:$relay_port" <<<"$(unit_property StatusText)"
    check_that "the journal names the wss URL" \
        "inside journalctl -u intrapush -q --no-pager | grep -F 'connected to wss://$server_name:$relay_port/' >/dev/null"
    output=$(inside intrapushd --check-config 2>&1)
    check "--check-config: tls is the default's, and says why" \
        grep -qxF "tls = true  # default: wss unless tls = false is written" <<<"$output"

    # The same server named with ws:// in debconf: tls = false beside host, in debconf's drop-in.
    preseed "intrapush intrapush/servers string ws://127.0.0.1:$port"
    status=0
    inside env DEBIAN_FRONTEND=noninteractive dpkg-reconfigure intrapush >/dev/null 2>&1 </dev/null || status=$?
    check "dpkg-reconfigure with ws://127.0.0.1:$port (status $status): host without the scheme, tls = false" \
        bash -c 'grep -qxF "host = \"127.0.0.1:$2\"" "$1" && grep -qx "tls = false" "$1"' _ "$(ct_path "$debconf_dropin")" "$port"
    inside rm -f /etc/intrapush/intrapush.conf.d/50-site.conf /etc/intrapush/ca.pem
    inside systemctl restart intrapush
    await 200 "the daemon to connect with ws" connected
    stop_tls_front
}

# After an upgrade from a release before 0.7 whose configuration named a server off this machine
# without tls: the package's drop-in keeps ws, and the upgrade said so.
tls_kept_checks() {
    local previous_version=$1 output=$2
    check "upgrade from $previous_version: the configuration relied on the old default: tls = false kept in the package's drop-in, and said" \
        bash -c 'grep -qx "tls = false" "$1" && grep -qF "relied on the old default tls = false" <<<"$2"' \
        _ "$(ct_path /etc/intrapush/intrapush.conf.d/00-tls-before-0.7.conf)" "$output"
}
