# SPDX-License-Identifier: Apache-2.0
# Sourced by system-test.sh: the local API as a shared host meets it. One person cannot lock the
# others out: bob (in no group of intrapush's) opens 1,000 connections and leaves them idle, and
# meanwhile alice's list, count and follow, her desktop agent, root's status and a fresh
# varlinkctl call are answered, bob's next connection is told Busy, and the daemon's descriptors
# and memory stay within the unit's ceilings. Every pipelined oneway mark is made. And a restart
# loses no caller: systemd holds the socket (intrapush.socket) while the daemon restarts.

local_api_socket=/run/intrapush/io.intrapush

# held_at_most N: bob's holder says the daemon keeps at most N of his connections.
held_at_most() {
    echo count >&"$holder_in"
    local line
    line=$(tail -n 1 "$scratch/holder.out")
    [[ $line == open* ]] && ((${line#open } <= $1))
}

fairness_checks() {
    local pid descriptors rss_kib output
    cp Tests/support/local_api_holder.py "$scratch/test/"
    mkfifo "$scratch/holder.in"
    inside runuser -u bob -- python3 /mnt/test/local_api_holder.py "$local_api_socket" 1000 \
        <"$scratch/holder.in" >"$scratch/holder.out" 2>&1 &
    local holder=$!
    exec {holder_in}>"$scratch/holder.in"
    await 600 "bob's 1,000 connections, and his next call" grep -q '^answer' "$scratch/holder.out"
    check "bob holding 1,000 connections: his next is told Busy by the interface he called" \
        grep -qx "answer io.intrapush.Notifications.Busy" "$scratch/holder.out"
    check_that "meanwhile alice's list is answered" "as alice intrapush list --limit 3 >/dev/null"
    check_that "meanwhile alice's count is answered" "as alice intrapush count >/dev/null"
    check_that "meanwhile root's status says connected" "inside intrapush status | grep 'is connected' >/dev/null"
    # With one line of backlog, follow subscribes after the newest it printed: nothing between is missed.
    inside runuser -u alice -- timeout 30 intrapush follow --lines 1 >"$scratch/follow.out" 2>&1 &
    local follower=$!
    await 100 "alice's follow to print its backlog" test -s "$scratch/follow.out"
    push '{"id":"fair-1","title":"while bob holds his connections"}'
    await 100 "alice's follow to print the push" grep -q "while bob holds" "$scratch/follow.out"
    check "meanwhile alice's follow prints a new push" grep -q "while bob holds" "$scratch/follow.out"
    await 100 "the push on alice's desktop" shown "while bob holds his connections"
    check "meanwhile alice's desktop agent shows it" shown "while bob holds his connections"
    kill "$follower" 2>/dev/null || true
    if inside sh -c 'command -v varlinkctl' >/dev/null; then
        output=$(as alice varlinkctl call "$local_api_socket" io.intrapush.Notifications.Count '{}' 2>&1)
        check "meanwhile a fresh varlinkctl call as alice is answered" grep -q '"count"' <<<"$output"
    fi
    # bob has no right here: 4 places of his own, in the pool of those with none.
    await 100 "the daemon to keep no more than 4 of bob's connections" held_at_most 4
    check "the daemon keeps at most 4 of bob's connections, who has no right ($(tail -n 1 "$scratch/holder.out"))" held_at_most 4
    pid=$(unit_property MainPID)
    descriptors=$(inside ls "/proc/$pid/fd" | wc -l)
    rss_kib=$(inside awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
    check "the daemon holds few descriptors for bob's 1,000 connections ($descriptors, under 512 of LimitNOFILE=8192)" test "$descriptors" -lt 512
    check "the daemon's memory stays far under MemoryHigh=384M ($((rss_kib / 1024)) MiB)" test "$rss_kib" -lt $((96 << 10))
    exec {holder_in}>&-
    wait "$holder" 2>/dev/null || true
}

# Neighbours on one host, as real users: alice floods the push loop with 20,000 pipelined oneway
# marks while pushes arrive, and dave's count is answered meanwhile; sixteen uids with no right
# hold 64 connections each and root holds 1,000, while alice lists and carol, a second
# administrator, asks the status.
neighbour_checks() {
    local before output holders=() user
    cp packaging/tests/oneway_flood.py Tests/support/local_api_holder.py "$scratch/test/"
    inside useradd --no-create-home --groups intrapush dave 2>/dev/null || true
    before=$(server_stat acked)
    as alice python3 /mnt/test/oneway_flood.py "$local_api_socket" 20000 >"$scratch/flood.out" 2>&1 &
    local flood=$!
    for n in $(seq 1 50); do push "{\"id\":\"neighbour-$n\",\"title\":\"beside a flood $n\"}"; done
    await 300 "the 50 pushes beside the flood acknowledged" acked_at_least $((before + 50))
    check "a oneway flood of 20,000 marks: the pushes beside it are acknowledged" acked_at_least $((before + 50))
    check_that "a oneway flood: another reader's count is answered meanwhile" "as dave intrapush count >/dev/null"
    wait "$flood" 2>/dev/null || true
    output=$(cat "$scratch/flood.out")
    echo "      alice's $output"
    check "a oneway flood: alice's own next call is answered once her marks are done" grep -q ": ok$" <<<"$output"

    for n in $(seq 1 16); do inside useradd --no-create-home "nobody$n" 2>/dev/null || true; done
    inside useradd --create-home --groups intrapush-admin carol 2>/dev/null || true
    for n in $(seq 1 16); do
        inside runuser -u "nobody$n" -- sh -c "sleep 120 | python3 /mnt/test/local_api_holder.py $local_api_socket 64 io.intrapush.Daemon.WhoAmI" \
            >"$scratch/many-$n.out" 2>&1 &
        holders+=($!)
    done
    inside sh -c "sleep 120 | python3 /mnt/test/local_api_holder.py $local_api_socket 1000 io.intrapush.Daemon.WhoAmI" >"$scratch/root.out" 2>&1 &
    holders+=($!)
    local answered='for f in "$1"/many-*.out "$1"/root.out; do grep -q "^answer" "$f" || exit 1; done'
    await 600 "the holders' connections" bash -c "$answered" _ "$scratch"
    if ! bash -c "$answered" _ "$scratch"; then
        # What each holder that gave no answer printed, and where the holders are.
        for f in "$scratch"/many-*.out "$scratch"/root.out; do
            grep -q "^answer" "$f" || echo "      no answer in ${f##*/}: $(tr '\n' ' ' <"$f" | cut -c1-300)"
        done
        inside ps -o user,stat,etime,wchan:20,args -C python3 | sed 's/^/      /' | head -20 || true
        inside ss -x -a state listening | sed 's/^/      /' | head -5 || true
    fi
    check_that "sixteen uids with no right holding 64 connections each, root 1,000: alice's list is answered" \
        "as alice intrapush list --limit 3 >/dev/null"
    output=$(as carol python3 /mnt/test/local_api_holder.py "$local_api_socket" 0 io.intrapush.Daemon.Status </dev/null 2>&1)
    check "meanwhile carol, a second administrator, is answered by the daemon ($output)" grep -qx "answer ok" <<<"$output"
    inside pkill -f local_api_holder.py || true
    for holder in "${holders[@]}"; do wait "$holder" 2>/dev/null || true; done
}

# Pipelined oneway marks on fresh connections, as a real reader (issue 56: some were never made):
# dave, of the group intrapush, marks 3,000 new pushes to everyone with oneway calls on one
# connection, then 3,000 more on sixteen connections at once; each time his unread count must
# drop by 3,000 (oneway_marks.py asks it, and awaits a last call on each connection first).
oneway_marks_checks() {
    local before span first unread output status connections
    cp packaging/tests/oneway_marks.py "$scratch/test/"
    inside useradd --no-create-home --groups intrapush dave 2>/dev/null || true
    before=$(server_stat acked)
    "$devserver" burst --server "$address" --count 6000 --prefix oneway-mark- >/dev/null
    await 300 "the 6,000 pushes to mark acknowledged" acked_at_least $((before + 6000))
    # Their ids: the first, how many from it to the last, how many.
    span=$(inside sqlite3 -readonly /var/lib/intrapush/notifications.sqlite3 \
        "SELECT min(id), max(id) - min(id) + 1, count(*) FROM notifications WHERE message_id LIKE 'oneway-mark-%'" || true)
    check "oneway marks: 6,000 pushes to mark stored, their ids consecutive (${span:-none})" test "${span#*|}" = "6000|6000"
    first=${span%%|*}
    for connections in 1 16; do
        unread=$(as dave intrapush count --unread || true)
        [[ $unread =~ ^[0-9]+$ ]] || unread=0  # the tool then says what it found
        status=0
        output=$(as dave python3 /mnt/test/oneway_marks.py "$local_api_socket" --first "$first" --count 3000 \
            --connections "$connections" --expect-unread $((unread - 3000)) 2>&1) || status=$?
        sed 's/^/      /' <<<"$output"
        check "3,000 pipelined oneway marks on $connections fresh connection(s) of one reader: every one made (exit $status)" \
            test "$status" = 0
        first=$((first + 3000))
    done
}

rider_running() { inside pgrep -u alice -f restart_rider >/dev/null; }

# A reader counting over and over while the daemon restarts: systemd's socket holds each call
# until the next daemon answers it. SYSTEM_TEST_RESTART_ROUNDS restarts (1 by default; 20 when
# hunting flakes), each with a reader of its own.
restart_checks() {
    local rounds=${SYSTEM_TEST_RESTART_ROUNDS:-1} round passed=0 calls=0 output running rider
    cp packaging/tests/restart_rider.py "$scratch/test/"
    for ((round = 1; round <= rounds; round++)); do
        inside rm -f /tmp/stop-rider
        inside runuser -u alice -- python3 /mnt/test/restart_rider.py /tmp/stop-rider >"$scratch/rider.out" 2>&1 &
        rider=$!
        running=$(unit_property MainPID)
        await 50 "alice's counts under way" rider_running
        inside systemctl restart intrapush || fail "systemctl restart intrapush"
        await 200 "the daemon restarted" restarted_since "$running"
        await 200 "the daemon to connect after the restart" connected
        inside touch /tmp/stop-rider
        wait "$rider" 2>/dev/null || true
        output=$(cat "$scratch/rider.out")
        if grep -q ' failures 0 ' <<<"$output"; then
            passed=$((passed + 1))
        else
            echo "      restart $round: $output"
        fi
        calls=$((calls + $(sed -n 's/^calls \([0-9]*\) .*/\1/p' <<<"$output")))
    done
    echo "      a reader through $rounds restart(s): $calls calls; the last: $output"
    check "a restart loses no caller: every count during it answered, $passed of $rounds restarts (socket held by systemd)" \
        test "$passed" = "$rounds"
}
