# SPDX-License-Identifier: Apache-2.0
# Sourced by system-test.sh: the one gate, as the people at the host meet it. alice and bob are
# both in the groups intrapush and team; four pushes go to alice, to bob, to team and to everyone.
# Through every CLI verb, a raw Varlink client written against the protocol (varlink_probe.py)
# and systemd's varlinkctl where the release has it, each sees exactly theirs, the team's and
# everyone's; neither marks the other's read; root sees everything.

# as USER COMMAND...: the command as USER, with the groups the group database gives them.
as() { local user=$1; shift; inside runuser -u "$user" -- "$@"; }
# row_id MESSAGE_ID: the notification's local id, read by root from the file.
row_id() { inside sqlite3 -readonly /var/lib/intrapush/notifications.sqlite3 "SELECT id FROM notifications WHERE message_id = '$1'"; }

# PyPI's varlink client (pure Python), downloaded once into the system test's cache and given to
# the container in /mnt/test/pypi.
pypi_varlink_version=31.0.0
pypi_varlink() {
    local cache=$here/.build/system-test/pypi-$pypi_varlink_version
    if [[ ! -d $cache/varlink ]]; then
        rm -rf "$cache" && mkdir -p "$cache" &&
            python3 -m pip download --quiet --no-deps --dest "$cache" "varlink==$pypi_varlink_version" >/dev/null 2>&1 &&
            python3 -m zipfile -e "$cache"/varlink-*.whl "$cache" || return 1
    fi
    mkdir -p "$scratch/test/pypi" && cp -r "$cache/varlink" "$scratch/test/pypi/" && chmod -R a+rX "$scratch/test/pypi"
}

gate_checks() {
    local socket=$local_api_socket before total status output
    cp packaging/tests/varlink_probe.py packaging/tests/varlink_pypi_probe.py "$scratch/test/"
    local probe="python3 /mnt/test/varlink_probe.py"
    inside groupadd team
    inside usermod --append --groups intrapush,team bob
    inside usermod --append --groups team alice
    before=$(server_stat acked)
    push '{"id":"gate-alice","title":"gate alice","to":"alice"}'
    push '{"id":"gate-bob","title":"gate bob","to":"bob"}'
    push '{"id":"gate-team","title":"gate team","to":"team"}'
    push '{"id":"gate-all","title":"gate all"}'
    await 200 "the gate's four pushes acknowledged" acked_at_least $((before + 4))
    total=$(inside intrapush count)
    local bob_id team_id alice_id
    bob_id=$(row_id gate-bob)
    team_id=$(row_id gate-team)
    alice_id=$(row_id gate-alice)

    check_that "alice cannot read the database file itself (administrators only)" \
        "! as alice sqlite3 -readonly /var/lib/intrapush/notifications.sqlite3 'SELECT count(*) FROM notifications' >/dev/null 2>&1"
    check_that "alice cannot list the state directory" "! as alice ls /var/lib/intrapush >/dev/null 2>&1"
    check_that "root sees all four" "[[ \$(inside intrapush list --limit 0 --grep gate | grep -c 'gate ') == 4 ]]"
    for person in alice bob; do
        local other=bob
        [[ $person == bob ]] && other=alice
        output=$(as "$person" intrapush list --limit 0 --grep gate 2>&1)
        check "$person's list: their own, the team's and everyone's" \
            test "$(grep -c "gate $person\|gate team\|gate all" <<<"$output")" = 3
        check "$person's list: not $other's" test "$(grep -c "gate $other" <<<"$output")" = 0
        check "$person's count: all but $other's one" test "$(as "$person" intrapush count)" = $((total - 1))
        output=$(as "$person" intrapush export --format json 2>&1)
        check "$person's export: not $other's" test "$(grep -c "gate-$other" <<<"$output")" = 0
        output=$(as "$person" $probe "$socket" io.intrapush.Notifications.List '{"limit": 1000}' 2>&1)
        check "a raw Varlink client as $person: List has theirs, not $other's" \
            test "$(grep -c "gate-$person" <<<"$output")/$(grep -c "gate-$other" <<<"$output")" = 1/0
    done
    if pypi_varlink; then
        for person in alice bob; do
            local other=bob others_id=$bob_id
            [[ $person == bob ]] && other=alice others_id=$alice_id
            output=$(as "$person" env PYTHONPATH=/mnt/test/pypi python3 /mnt/test/varlink_pypi_probe.py "$socket" "$others_id" 2>&1)
            check "PyPI's varlink client as $person: theirs, the team's and everyone's, not $other's" \
                test "$(grep -cx "title gate \($person\|team\|all\)" <<<"$output")/$(grep -cx "title gate $other" <<<"$output")" = 3/0
            check "PyPI's varlink client as $person: $other's is NoSuchNotification to show" \
                grep -qx "show io.intrapush.Notifications.NoSuchNotification" <<<"$output"
            check "PyPI's varlink client as $person: $other's is missing to mark" grep -qx "missing \[$others_id\]" <<<"$output"
            check "PyPI's varlink client as $person: not everything" grep -qx "reads_all false" <<<"$output"
        done
    else
        fail "PyPI's varlink client could be had (pip download varlink==$pypi_varlink_version)"
    fi

    status=0
    output=$(as alice intrapush show "$bob_id" 2>&1) || status=$?
    check "alice's show of bob's notification: not found, exit 1 (was $status)" test "$status" = 1
    check "alice's show of bob's notification: nothing of it shown" test "$(grep -c "gate bob" <<<"$output")" = 0
    output=$(as alice $probe "$socket" io.intrapush.Notifications.Show "{\"id\": $bob_id}" 2>&1) || true
    check "a raw client's Show of bob's as alice: NoSuchNotification" grep -q NoSuchNotification <<<"$output"
    output=$(as alice $probe "$socket" io.intrapush.Daemon.WhoAmI '{"uid": 0, "user": "root"}' 2>&1) || true
    check "WhoAmI claiming root as alice: no such parameter" grep -q 'org.varlink.service.InvalidParameter {"parameter": "uid"}' <<<"$output"
    output=$(as alice $probe "$socket" io.intrapush.Daemon.WhoAmI 2>&1)
    check "WhoAmI as alice: the kernel's alice" grep -q "\"uid\": $(inside id -u alice)" <<<"$output"
    check "WhoAmI as alice: reads, not everything" grep -q '"reads_all": false' <<<"$output"

    status=0
    as alice intrapush mark-read "$bob_id" >/dev/null 2>&1 || status=$?
    check "alice's mark-read of bob's: not found, exit 1 (was $status)" test "$status" = 1
    check_that "bob's stays unread after alice tried" \
        "as bob intrapush list --unread --grep 'gate bob' | grep 'gate bob' >/dev/null"
    check_that "alice marks the team's read" "as alice intrapush mark-read $team_id $alice_id >/dev/null"
    check_that "the team's is read for alice" "! as alice intrapush list --unread --grep 'gate team' | grep 'gate team' >/dev/null"
    check_that "the team's is still unread for bob" \
        "as bob intrapush list --unread --grep 'gate team' | grep 'gate team' >/dev/null"

    if inside sh -c 'command -v varlinkctl' >/dev/null; then
        mkdir -p "$scratch/test/varlink" && cp packaging/varlink/*.varlink "$scratch/test/varlink/"
        for file in "$scratch"/test/varlink/*.varlink; do
            status=0
            output=$(inside varlinkctl validate-idl "/mnt/test/varlink/${file##*/}" 2>&1) || status=$?
            check "varlinkctl validate-idl ${file##*/} (status $status)" test "$status" = 0
            [[ $status == 0 ]] || sed 's/^/      /' <<<"$output"
        done
        output=$(as bob varlinkctl introspect "$socket" io.intrapush.Notifications 2>&1)
        check "varlinkctl introspect: the interface's methods" grep -q "method Subscribe" <<<"$output"
        output=$(as bob varlinkctl call "$socket" io.intrapush.Notifications.Count '{}' 2>&1)
        check "varlinkctl call Count as bob: all but alice's one" grep -q "\"count\" *: *$((total - 1))" <<<"$output"
        output=$(as bob timeout 3 varlinkctl call --more "$socket" io.intrapush.Notifications.Subscribe '{"after_id": 0}' 2>&1 || true)
        check "varlinkctl call --more Subscribe as bob: bob's, not alice's" \
            test "$(grep -c '"gate-bob"' <<<"$output")/$(grep -c '"gate-alice"' <<<"$output")" = 1/0
    else
        echo "  (no varlinkctl in this release: systemd 255 and later have it)"
    fi
}
