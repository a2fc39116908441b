# SPDX-License-Identifier: Apache-2.0
# Sourced by system-test.sh: upgrades from real installations of the releases before (0.3.0-1
# and 0.4.0-1, built by scripts/previous_deb.sh), as a fleet's unattended upgrade meets them: the
# administrator had edited /etc/intrapush/intrapush.conf, the conffile those releases shipped,
# and a plain `apt-get install` (noninteractive, no --force-conf* option) must ask nothing and
# keep every notification, every mark and every setting; the edited file stays as it was and
# stays in force. Runs after the gate's checks (alice and bob exist, both in intrapush and team).

# set_in_old_conffile KEY VALUE: the edit an administrator made to the old shipped file.
set_in_old_conffile() {
    local conf
    conf=$(ct_path /etc/intrapush/intrapush.conf)
    # 0.5 shipped none: the administrator wrote their own.
    touch "$conf"
    sed -i "/^$1 *=/d" "$conf"
    printf '%s = %s\n' "$1" "$2" >>"$conf"
}

upgrade_from_previous_checks() {
    local previous=$1 previous_version before status running output edited leftovers
    previous_version=$(dpkg-deb -f "$previous" Version)
    inside apt-get purge -y -q intrapush >/dev/null 2>&1 || fail "apt-get purge before installing $previous_version"
    check "purge before $previous_version: no token left, sealed or plain" \
        test ! -e "$(ct_path "$sealed_token")" -a ! -e "$(ct_path /etc/intrapush/token)"
    inside rm -rf /etc/intrapush
    inside apt-get install -y -q "/mnt/test/${previous##*/}" >/dev/null 2>&1 </dev/null ||
        fail "apt-get install $previous_version"
    # A server by name, off this machine as far as the configuration says: it relies on the old
    # default, tls = false, which the upgrade must keep.
    name_the_server
    set_in_old_conffile host "\"$server_name:$port\""
    set_in_old_conffile org '"acme"'
    set_in_old_conffile retention_days 45
    install_token
    inside systemctl start intrapush || fail "systemctl start intrapush ($previous_version)"
    await 200 "$previous_version to connect" connected
    before=$(server_stat acked)
    push '{"id":"old-alice","title":"old alice","to":"alice"}'
    push '{"id":"old-bob","title":"old bob","to":"bob"}'
    push '{"id":"old-team","title":"old team","to":"team"}'
    push '{"id":"old-all","title":"old all"}'
    await 200 "$previous_version's four pushes acknowledged" acked_at_least $((before + 4))
    # A mark made under the old release (0.3 had one read state for everyone).
    inside intrapush mark-read "$(row_id old-all)" >/dev/null || fail "mark-read under $previous_version"
    check "before the upgrade: $previous_version installed" \
        test "$(inside dpkg-query -W -f '${Version}' intrapush)" = "$previous_version"
    edited=$(md5sum <"$(ct_path /etc/intrapush/intrapush.conf)")

    running=$(unit_property MainPID)
    status=0
    output=$(inside env DEBIAN_FRONTEND=noninteractive apt-get install -y -q /mnt/test/intrapush.deb 2>&1 </dev/null) || status=$?
    check "upgrade from $previous_version: a plain apt-get install, no --force-conf*, asks nothing (status $status)" test "$status" = 0
    [[ $status == 0 ]] || tail -15 <<<"$output" | sed 's/^/      /'
    await 200 "upgrade from $previous_version: the daemon restarted" restarted_since "$running"
    await 200 "upgrade from $previous_version: connected again" connected
    tls_kept_checks "$previous_version" "$output"
    check "upgrade from $previous_version: the token sealed ($sealed_token), the plain file gone" \
        test "$(sealed_token_value)/$([[ -e $(ct_path /etc/intrapush/token) ]] && echo plain)" = "$(cat "$scratch/token")/"
    check_that "upgrade from $previous_version: no file under /etc holds the token in clear" \
        "! inside grep -rlF '$(cat "$scratch/token")' /etc >/dev/null"
    check "upgrade from $previous_version: $version installed" test "$(inside dpkg-query -W -f '${Version}' intrapush)" = "$version"
    check "upgrade from $previous_version: the edited intrapush.conf kept as it was" \
        test "$(md5sum <"$(ct_path /etc/intrapush/intrapush.conf)")" = "$edited"
    leftovers=$(inside find /etc/intrapush -name '*.dpkg-*' -o -name '*.ucf-*')
    check "upgrade from $previous_version: no .dpkg-dist, .dpkg-old or .dpkg-bak beside it ($leftovers)" test -z "$leftovers"
    output=$(inside intrapushd --check-config 2>&1)
    check "upgrade from $previous_version: its settings still in force, from the edited file" \
        grep -qE '^retention_days = 45  # /etc/intrapush/intrapush.conf:[0-9]+$' <<<"$output"
    check "upgrade from $previous_version: every notification kept (root counts 4)" test "$(inside intrapush count)" = 4
    check "upgrade from $previous_version: the database is 0640 intrapush:intrapush-admin, its directory 0751" \
        test "$(inside stat -c %a:%U:%G /var/lib/intrapush/notifications.sqlite3)/$(inside stat -c %a /var/lib/intrapush)" = 640:intrapush:intrapush-admin/751
    check_that "upgrade from $previous_version: alice cannot read the file itself" \
        "! as alice sqlite3 -readonly /var/lib/intrapush/notifications.sqlite3 'SELECT 1' >/dev/null 2>&1"
    # 0.3 had one read state for everyone: root's mark was everyone's. Since 0.4 a mark is its maker's.
    local marks="root's was everyone's" unread_for_others=2
    if dpkg --compare-versions "$previous_version" ge 0.4.0-1~; then
        marks="root's is root's" unread_for_others=3
    fi
    for person in alice bob; do
        local other=bob
        [[ $person == bob ]] && other=alice
        output=$(as $person intrapush list --limit 0 2>&1) || true
        check "upgrade from $previous_version: $person's list is theirs, the team's and everyone's, not $other's" \
            test "$(grep -c "old $person\|old team\|old all" <<<"$output")/$(grep -c "old $other" <<<"$output")" = 3/0
        check "upgrade from $previous_version: the old mark holds for $person ($marks)" \
            test "$(as $person intrapush count --unread 2>&1)" = "$unread_for_others"
    done
    check "upgrade from $previous_version: root's mark kept (3 of 4 unread for root)" test "$(inside intrapush count --unread)" = 3
    status=0
    as alice intrapush mark-read "$(row_id old-bob)" >/dev/null 2>&1 || status=$?
    check "upgrade from $previous_version: alice cannot mark bob's (exit $status)" test "$status" != 0
}
