# Sourced by system-test.sh: an upgrade from a real installation of the release before (0.3.0-1,
# built by scripts/previous_deb.sh), as a host that ran it would meet 0.4: everything stored and
# every mark kept, the file closed to everyone but the administrators, each person given theirs.
# Runs after the gate's checks (alice and bob exist, both in intrapush and team).

upgrade_from_previous_checks() {
    local previous_version before status running output
    previous_version=$(dpkg-deb -f "$scratch/test/intrapush-previous.deb" Version)
    inside apt-get purge -y -q intrapush >/dev/null 2>&1 || fail "apt-get purge before installing $previous_version"
    inside apt-get install -y -q /mnt/test/intrapush-previous.deb >/dev/null 2>&1 </dev/null ||
        fail "apt-get install $previous_version"
    configure_daemon
    inside systemctl start intrapush || fail "systemctl start intrapush ($previous_version)"
    await 200 "$previous_version to connect" connected
    before=$(server_stat acked)
    push '{"id":"old-alice","title":"old alice","to":"alice"}'
    push '{"id":"old-bob","title":"old bob","to":"bob"}'
    push '{"id":"old-team","title":"old team","to":"team"}'
    push '{"id":"old-all","title":"old all"}'
    await 200 "$previous_version's four pushes acknowledged" acked_at_least $((before + 4))
    # A mark made under the old release, which had one read state for everyone.
    inside intrapush mark-read "$(row_id old-all)" >/dev/null || fail "mark-read under $previous_version"
    check "before the upgrade: $previous_version installed" \
        test "$(inside dpkg-query -W -f '${Version}' intrapush)" = "$previous_version"

    running=$(unit_property MainPID)
    # The shipped configuration changed since 0.3 and the administrator edited theirs: unattended,
    # as unattended-upgrades does, theirs is kept and the new one set beside it.
    output=$(inside env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold /mnt/test/intrapush.deb 2>&1 </dev/null) ||
        fail "apt-get install (upgrade from $previous_version): $(tail -15 <<<"$output")"
    await 200 "upgrade from $previous_version: the daemon restarted" restarted_since "$running"
    await 200 "upgrade from $previous_version: connected again" connected
    check "upgrade from $previous_version: $version installed" test "$(inside dpkg-query -W -f '${Version}' intrapush)" = "$version"
    check "upgrade from $previous_version: the edited configuration kept, the new one beside it" \
        test -f "$(ct_path /etc/intrapush/intrapush.conf.dpkg-dist)" -a "$(grep -c '^host *=' "$(ct_path /etc/intrapush/intrapush.conf)")" = 1
    check "upgrade from $previous_version: every notification kept (root counts 4)" test "$(inside intrapush count)" = 4
    check "upgrade from $previous_version: the database is 0640 intrapush:intrapush-admin, its directory 0751" \
        test "$(inside stat -c %a:%U:%G /var/lib/intrapush/notifications.sqlite3)/$(inside stat -c %a /var/lib/intrapush)" = 640:intrapush:intrapush-admin/751
    check_that "upgrade from $previous_version: alice cannot read the file itself" \
        "! as alice sqlite3 -readonly /var/lib/intrapush/notifications.sqlite3 'SELECT 1' >/dev/null 2>&1"
    for person in alice bob; do
        local other=bob
        [[ $person == bob ]] && other=alice
        output=$(as $person intrapush list --limit 0 2>&1) || true
        check "upgrade from $previous_version: $person's list is theirs, the team's and everyone's, not $other's" \
            test "$(grep -c "old $person\|old team\|old all" <<<"$output")/$(grep -c "old $other" <<<"$output")" = 3/0
        check "upgrade from $previous_version: the old mark holds for $person (everyone's is read)" \
            test "$(as $person intrapush count --unread 2>&1)" = 2
    done
    status=0
    as alice intrapush mark-read "$(row_id old-bob)" >/dev/null 2>&1 || status=$?
    check "upgrade from $previous_version: alice cannot mark bob's (exit $status)" test "$status" != 0
}
