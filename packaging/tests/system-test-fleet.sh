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
    check "preseeded install: the token in /etc/intrapush/token, 0600 root" \
        test "$(inside stat -c %a:%U /etc/intrapush/token)/$(inside cat /etc/intrapush/token)" = "600:root/$token"
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
    (umask 077 && echo "not-the-token" >"$(ct_path /etc/intrapush/token)")
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
    check "dpkg-reconfigure: the token replaced, and gone from debconf again" \
        bash -c '[[ $(cat "$1") == "$2" ]] && ! grep -rqF "$2" "$3"' _ "$(ct_path /etc/intrapush/token)" "$token" "$(ct_path /var/cache/debconf)"
}
