# SPDX-License-Identifier: Apache-2.0
# Sourced by system-test.sh: intrapush as a fleet installs and runs it, with no person at the
# host. Answers preseeded into debconf, then a plain `apt-get install -y`: connected, the token
# 0600 and in no debconf database, no file an administrator edits touched. A drop-in overriding
# the administrator's file, named by `intrapushd --check-config`. The journal's structured
# events, found by MESSAGE_ID and by field, and the catalog's words for a rejected token.
# dpkg-reconfigure rewriting debconf's drop-in.

connected_id=b27b58cf02fb40c28b68015b22b07b48
token_rejected_id=d833799274bb465ab2f7cbfab06161d7

debconf_dropin=/etc/intrapush/intrapush.conf.d/00-debconf.conf

token_rejection_logged() { inside journalctl -u intrapush "MESSAGE_ID=$token_rejected_id" -q --no-pager | grep . >/dev/null; }

sealed_token=/etc/credstore.encrypted/intrapush.token
# The sealed token as root decrypts it (never printed by a check: compared).
sealed_token_value() { inside systemd-creds decrypt --name=token "$sealed_token" - 2>/dev/null | head -n 1; }

preseed() {
    printf '%s\n' "$@" | inside debconf-set-selections || fail "debconf-set-selections"
}

fleet_checks() {
    local output token status selections
    token=$(cat "$scratch/token")
    inside apt-get purge -y -q intrapush >/dev/null 2>&1 || fail "apt-get purge before the preseeded install"
    inside rm -rf /etc/intrapush
    preseed "intrapush intrapush/servers string 127.0.0.1:$port" "intrapush intrapush/org string acme" \
        "intrapush intrapush/token password $token"
    output=$(inside env DEBIAN_FRONTEND=noninteractive apt-get install -y -q /mnt/test/intrapush.deb 2>&1 </dev/null) ||
        fail "apt-get install, preseeded: $(tail -5 <<<"$output")"
    await 200 "the preseeded daemon to connect" connected
    check "preseeded install: connected, with no file touched by hand" connected
    check "preseeded install: the token sealed by systemd-creds in $sealed_token, 0600 root, no plain file" \
        test "$(inside stat -c %a:%U "$sealed_token")/$(sealed_token_value)/$(inside ls /etc/intrapush/token 2>&1 | grep -c 'No such')" = "600:root/$token/1"
    check_that "preseeded install: no file under /etc holds the token in clear" "! inside grep -rlF '$token' /etc >/dev/null"
    check "preseeded install: the answers in debconf's drop-in, nothing in /etc/intrapush/intrapush.conf" \
        bash -c '[[ ! -e $1/etc/intrapush/intrapush.conf ]] && grep -qx "host = \"127.0.0.1:$2\"" "$1$3" && grep -qx "org = \"acme\"" "$1$3"' \
        _ "$(ct_path /)" "$port" "$debconf_dropin"
    check_that "preseeded install: the token is in none of debconf's databases" \
        "! inside grep -rqF '$token' /var/cache/debconf/"
    selections=$(inside debconf-get-selections 2>/dev/null | grep 'intrapush/token' || true)
    check "preseeded install: debconf keeps the question, not the answer ($selections)" \
        grep -qE 'intrapush/token[[:space:]]+password[[:space:]]*$' <<<"$selections"

    # An administrator's file and a drop-in of theirs: the drop-in's value is in force, and the
    # check says where each key came from.
    printf 'heartbeat_interval = "9s"\n' >"$(ct_path /etc/intrapush/intrapush.conf)"
    printf '# the site'"'"'s\nheartbeat_interval = "7s"\n' >"$(ct_path /etc/intrapush/intrapush.conf.d/60-site.conf)"
    output=$(inside intrapushd --check-config 2>&1)
    check "a drop-in overrides the main file; --check-config names the drop-in's line" \
        grep -qxF 'heartbeat_interval = "7s"  # /etc/intrapush/intrapush.conf.d/60-site.conf:2' <<<"$output"
    check "--check-config names debconf's drop-in for host" \
        grep -qxF "host = \"127.0.0.1:$port\"  # $debconf_dropin:3" <<<"$output"
    check "--check-config: the token masked" bash -c '! grep -qF "$1" <<<"$2"' _ "$token" "$output"
    inside rm -f /etc/intrapush/intrapush.conf /etc/intrapush/intrapush.conf.d/60-site.conf

    # The journal, by field.
    output=$(inside journalctl -u intrapush "MESSAGE_ID=$connected_id" -o cat --no-pager 2>&1)
    check "journalctl MESSAGE_ID=<connected> finds the connection" grep -qF "connected to ws://127.0.0.1:$port/" <<<"$output"
    output=$(inside journalctl -u intrapush "INTRAPUSH_SERVER=ws://127.0.0.1:$port/connect/linux/acme/***" -o cat --no-pager 2>&1)
    check "journalctl INTRAPUSH_SERVER=… finds it too" grep -qF "connected to" <<<"$output"
    check_that "the journal's fields carry no token" \
        "! inside journalctl -u intrapush -o export --no-pager | grep -aqF '$token'"

    # A rejected token: its event, and the catalog's words with journalctl -x.
    expect_warning "token rejected by the server"
    # The token by hand, as an administrator without debconf puts it: the sealed one goes, and
    # the unit reads the file (the generator names the sealed one only while it exists).
    (umask 077 && echo "not-the-token" >"$(ct_path /etc/intrapush/token)")
    inside rm "$sealed_token"
    inside systemctl daemon-reload
    inside systemctl restart intrapush
    await 200 "the rejected token's event" token_rejection_logged
    output=$(inside journalctl -x -u intrapush "MESSAGE_ID=$token_rejected_id" --no-pager 2>&1)
    check "journalctl -x explains a rejected token (the catalog)" grep -qF "Check with the server's administrators" <<<"$output"
    check "the rejected token's event names the HTTP status" \
        grep -qx "INTRAPUSH_HTTP_STATUS=401" <<<"$(inside journalctl -u intrapush "MESSAGE_ID=$token_rejected_id" -o export --no-pager)"

    # dpkg-reconfigure, answered beforehand (a fleet's tool does it noninteractively): the token
    # and a standby server; debconf's drop-in rewritten, the daemon restarted on it.
    preseed "intrapush intrapush/servers string 127.0.0.1:$port 127.0.0.1:1" "intrapush intrapush/token password $token"
    status=0
    output=$(inside env DEBIAN_FRONTEND=noninteractive dpkg-reconfigure intrapush 2>&1 </dev/null) || status=$?
    check "dpkg-reconfigure intrapush, answered beforehand (status $status)" test "$status" = 0
    check "dpkg-reconfigure: debconf's drop-in names both servers" \
        grep -qxF "host = [\"127.0.0.1:$port\", \"127.0.0.1:1\"]" "$(ct_path "$debconf_dropin")"
    inside systemctl restart intrapush
    await 200 "the daemon to connect with the reconfigured token" connected
    check "dpkg-reconfigure: the token replaced, sealed again, the plain file gone, and gone from debconf again" \
        bash -c '[[ $1 == "$2" && ! -e $3 ]] && ! grep -rqF "$2" "$4"' _ "$(sealed_token_value)" "$token" \
        "$(ct_path /etc/intrapush/token)" "$(ct_path /var/cache/debconf)"
}

# --- two hosts with one preseeded token (protocol §10) ------------------------------------------------
# The packaged daemon, its identity derived from the container's machine id, and a second intrapushd
# beside it (its own host_id and database, a transient unit), both with the fleet's one token: a
# push for the org reaches both, each acknowledging its own; a push for one host reaches it alone; a
# host stopped for a while gets what came meanwhile once it is back, the other unaffected.
app_id=3d1e5e30-6573-4291-9a90-3f916ac63ab7
second_database=/var/lib/intrapush-second/notifications.sqlite3

# host_stat HOST KEY: one host's figure in the devserver's /stats (-1 before it connected).
host_stat() {
    server_stats | python3 -c 'import json, sys
hosts = [h for h in json.load(sys.stdin).get("hosts", []) if h["host"] == sys.argv[1]]
print(int(hosts[0][sys.argv[2]]) if hosts else -1)' "$1" "$2"
}
host_connected() { [[ $(host_stat "$1" connected) == 1 ]]; }
host_gone() { [[ $(host_stat "$1" connected) == 0 ]]; }
host_acked_at_least() { (($(host_stat "$1" acked) >= $2)); }
# has_push DATABASE ID: the notification of that id is stored there.
has_push() { inside intrapush list --database "$1" --json --limit 0 | grep -F "\"$2\"" >/dev/null; }
start_second_host() {
    inside systemd-run --quiet --unit=intrapush-second-host /usr/sbin/intrapushd --config /etc/intrapush-second.conf ||
        fail "systemd-run the second host"
}

two_hosts_checks() {
    local first second=desk-second acked_first acked_second output
    first=$(inside systemd-id128 --app-specific=$app_id machine-id)
    await 200 "the packaged daemon to connect as $first" host_connected "$first"
    check "the packaged daemon's identity is systemd's application-specific id of the machine id ($first)" \
        host_connected "$first"
    output=$(inside intrapush status 2>&1)
    check "intrapush status shows the host's identity" grep -qE "^Host identity: +$first\$" <<<"$output"
    output=$(inside intrapushd --check-config 2>&1)
    check "intrapushd --check-config shows the derived identity" grep -qF "# host_id: $first, derived" <<<"$output"

    inside mkdir -p /var/lib/intrapush-second
    # The packaged daemon's token is sealed for its unit: the second one has a copy of its own.
    (umask 077 && cp "$scratch/token" "$(ct_path /var/lib/intrapush-second/token)")
    printf 'host = "127.0.0.1:%s"\norg = "acme"\ntoken_file = "/var/lib/intrapush-second/token"\nhost_id = "%s"\ndatabase = "%s"\nheartbeat_interval = "1s"\n' \
        "$port" "$second" "$second_database" >"$(ct_path /etc/intrapush-second.conf)"
    start_second_host
    await 200 "the second host to connect" host_connected "$second"
    acked_first=$(host_stat "$first" acked)
    acked_second=$(host_stat "$second" acked)
    push '{"id":"fleet-all-1","title":"for every host"}'
    "$devserver" push --server "$address" --host "$second" '{"id":"fleet-second","title":"for the second host"}' >/dev/null
    push '{"id":"fleet-all-2","title":"for every host"}'
    await 200 "the first host to acknowledge its two" host_acked_at_least "$first" $((acked_first + 2))
    await 200 "the second host to acknowledge its three" host_acked_at_least "$second" $((acked_second + 3))
    check_that "a push for the org reaches both hosts, each acknowledging its own" \
        "has_push /var/lib/intrapush/notifications.sqlite3 fleet-all-2 && has_push $second_database fleet-all-2 && has_push $second_database fleet-all-1"
    check_that "a push for one host reaches it alone" \
        "has_push $second_database fleet-second && ! has_push /var/lib/intrapush/notifications.sqlite3 fleet-second"

    inside systemctl stop intrapush-second-host
    await 200 "the second host to be gone" host_gone "$second"
    push '{"id":"fleet-all-3","title":"while the second host is away"}'
    await 200 "the first host to acknowledge fleet-all-3" host_acked_at_least "$first" $((acked_first + 3))
    check "the first host is not held up by the one away" has_push /var/lib/intrapush/notifications.sqlite3 fleet-all-3
    check "what came while the second host was away waits for it ($(host_stat "$second" queued) queued)" \
        test "$(host_stat "$second" queued)" = 1
    start_second_host
    await 200 "the second host to get fleet-all-3 once back" host_acked_at_least "$second" $((acked_second + 4))
    check "the second host, back, stored what it missed" has_push "$second_database" fleet-all-3
    inside systemctl stop intrapush-second-host
}
