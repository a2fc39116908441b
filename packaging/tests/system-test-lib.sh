# SPDX-License-Identifier: Apache-2.0
# Helpers of system-test.sh (sourced): checks, the container, the devserver, bounded waits.
# Uses the caller's variables: here, root, scratch, devserver.

source packaging/tests/checks.sh
leader=""          # the container's PID 1, as the host sees it
nspawn_pid=""
server_pid=""
address=""         # the devserver's HOST:PORT
port=""

elapsed() { awk -v s="$1" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - s }'; }

# await TENTHS DESCRIPTION COMMAND...: polls the condition every 0.1 s; a timeout is a failure,
# and the test goes on (the checks after it say what else broke).
await() {
    local bound=$1 what=$2 tries
    shift 2
    for ((tries = 0; tries < bound; tries++)); do
        "$@" && return 0
        sleep 0.1
    done
    fail "waited $((bound / 10)) s for $what"
}

# --- the container ----------------------------------------------------------------------------------
boot_container() {
    # What works on these machines: no registration with machined, the caller's scope kept, the
    # unified cgroup hierarchy, the host's network.
    SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1 systemd-nspawn --boot --register=no --keep-unit \
        --volatile=overlay --directory="$root" --machine=intrapush-system-test \
        --bind-ro="$scratch/test:/mnt/test" </dev/null >"$scratch/boot.log" 2>&1 &
    nspawn_pid=$!
    local tries
    for ((tries = 0; tries < 300; tries++)); do
        leader=$(pgrep -P "$nspawn_pid" -x systemd || true)
        [[ -n $leader ]] && break
        kill -0 "$nspawn_pid" 2>/dev/null || break
        sleep 0.1
    done
    # Nothing of ours runs before the boot: a container that cannot boot says where we are.
    if [[ -z $leader ]]; then
        tail -5 "$scratch/boot.log"
        echo "system-test: skipped: systemd-nspawn cannot boot a container on this machine (above)"
        exit 0
    fi
    # systemctl answers once PID 1's bus is up; then --wait waits for the boot to finish. Before
    # the bus is up it prints "offline" at once (seen on CI's path: a flaky stage), so that is
    # waited out too.
    local state=""
    for ((tries = 0; tries < 600; tries++)); do
        state=$(inside systemctl is-system-running --wait 2>/dev/null || true)
        [[ -n $state && $state != offline ]] && break
        sleep 0.1
    done
    [[ $state == running ]] || { echo "system-test: the container is ${state:-not answering}:" >&2; inside systemctl --failed >&2; exit 1; }
}

# inside COMMAND...: runs in the container, with a clean environment.
inside() {
    nsenter -t "$leader" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"
}
# ct_path PATH: the container's file, seen from the host.
ct_path() { printf '/proc/%s/root%s' "$leader" "$1"; }

unit_state() { inside systemctl is-active intrapush || true; }
unit_is() { [[ $(unit_state) == "$1" ]]; }
unit_property() { inside systemctl show --property="$1" --value intrapush; }
restarted_since() {
    local pid
    pid=$(unit_property MainPID)
    [[ $pid != 0 && $pid != "$1" ]] && unit_is active
}
# Pipelines end in `grep >/dev/null`, not `grep -q`: under pipefail, a -q that stops reading at
# the first match kills the writer with SIGPIPE and the pipeline fails though it matched.
journal_has() { inside journalctl -u intrapush -q --no-pager | grep -F -- "$1" >/dev/null; }
# integrity_check PATH: SQLite's verdict on the container's database, by the container's sqlite3.
integrity_check() { inside sqlite3 -readonly "$1" 'pragma integrity_check' 2>&1; }
# listening_on PORT: intrapushd listens on the loopback PORT (the container shares the host's network).
listening_on() { ss -tlnpH "sport = :$1" | grep -F '"intrapushd"' >/dev/null; }
# container_daemon_listens_on_tcp: an intrapushd of this container (not another test's on the
# machine: the network is shared) listens on a TCP port.
container_daemon_listens_on_tcp() {
    local pid
    for pid in $(ss -tlnpH | grep -F '"intrapushd"' | grep -o 'pid=[0-9]*' | cut -d= -f2); do
        [[ /proc/$pid/root -ef /proc/$leader/root ]] && return 0
    done
    return 1
}
stored() { inside intrapush list --json | grep -F "\"$1\"" >/dev/null; }

configure_daemon() {
    set_key host "\"127.0.0.1:$port\""
    set_key org '"acme"'
    install_token
}
install_token() {
    (umask 077 && cp "$scratch/token" "$(ct_path /etc/intrapush/token)")
}
# The test's settings live in a drop-in of their own, as a fleet's configuration tool puts
# them, never in intrapush.conf.
test_dropin=/etc/intrapush/intrapush.conf.d/50-test.conf
# set_key KEY VALUE: sets a key in the test's drop-in.
set_key() {
    local conf
    conf=$(ct_path "$test_dropin")
    touch "$conf"
    sed -i "/^$1 *=/d" "$conf"
    printf '%s = %s\n' "$1" "$2" >>"$conf"
}
# unset_key KEY...: removes keys from the test's drop-in.
unset_key() {
    local key
    for key in "$@"; do sed -i "/^$key *=/d" "$(ct_path "$test_dropin")"; done
}
# add_line TEXT: a line as written, good or bad, at the end of the test's drop-in.
add_line() { printf '%s\n' "$1" >>"$(ct_path "$test_dropin")"; }

# --- the devserver ----------------------------------------------------------------------------------
start_server() {
    (umask 077 && od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$scratch/token")
    # Made before the server is started: the background job opens it only once it runs, and
    # under load the first read below came first (sed failed on a missing file, ending the run).
    : >"$scratch/devserver.out"
    "$devserver" serve --listen 127.0.0.1:0 --token-file "$scratch/token" \
        >"$scratch/devserver.out" 2>"$scratch/devserver.log" &
    server_pid=$!
    local tries
    for ((tries = 0; tries < 300; tries++)); do
        address=$(sed -n 's/^listening on //p' "$scratch/devserver.out")
        [[ -n $address ]] && break
        sleep 0.1
    done
    [[ -n $address ]] || { cat "$scratch/devserver.log" >&2; echo "system-test: no devserver" >&2; exit 1; }
    port=${address##*:}
}
server_stats() { "$devserver" stats --server "$address"; }
# server_stat KEY: a number of the devserver's /stats.
server_stat() { server_stats | python3 -c "import json, sys; print(json.load(sys.stdin)['$1'])"; }
server_close_count() {
    server_stats | python3 -c "import json, sys; print(json.load(sys.stdin)['close_codes'].get('$1', 0))"
}
close_count_above() { (($(server_close_count "$1") > $2)); }
acked_at_least() { (($(server_stat acked) >= $1)); }
connections_at_least() { (($(server_stat connections_total) >= $1)); }
connected() {
    [[ $(unit_property StatusText) == connected\ to* ]] && (($(server_stat connections_open) == 1))
}
push() { "$devserver" push --server "$address" "$1" >/dev/null; }
upstream_has() { curl -fsS "http://$address/upstream" | grep -F "$1" >/dev/null; }

# --- a person at the desk -----------------------------------------------------------------------
# alice's own systemd user manager (lingering, as her login would start it) runs the agent's user
# unit; python-dbusmock's notification server runs on her session bus as a user service of her
# own. A push must be shown there, and "Mark as read" (the server's ActionInvoked, as a click
# sends it) must reach the push server as a read receipt.
as_alice() {
    inside runuser -u alice -- env XDG_RUNTIME_DIR="/run/user/$alice_uid" \
        DBUS_SESSION_BUS_ADDRESS="unix:path=/run/user/$alice_uid/bus" "$@"
}
name_owned() {
    as_alice busctl --user call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
        NameHasOwner s "$1" 2>/dev/null | grep -F true >/dev/null
}
shown() { grep -F " Notify \"intrapush\" 0 \"\" \"$1\"" "$(ct_path /home/alice/notify.log)" >/dev/null 2>&1; }
desktop_session() {
    alice_uid=$(inside id -u alice)
    set_key read_receipt_text "'{\"type\":\"read\",\"message_id\":\"{message_id}\"}'"
    inside systemctl reload intrapush || fail "systemctl reload intrapush"
    inside loginctl enable-linger alice || fail "loginctl enable-linger alice"
    await 300 "alice's user manager and session bus" test -S "$(ct_path "/run/user/$alice_uid/bus")"
    as_alice systemd-run --user --quiet --unit=notification-server \
        python3 -m dbusmock --template notification_daemon -l /home/alice/notify.log ||
        fail "the notification server as alice's user service"
    await 200 "a notification server on alice's session bus" name_owned org.freedesktop.Notifications
    as_alice systemctl --user start intrapush-notifier.service || fail "systemctl --user start intrapush-notifier"
    await 100 "the agent on alice's session bus" name_owned org.intrapush.Notifier
    check "intrapush-notifier: active under alice's user manager" \
        test "$(as_alice systemctl --user is-active intrapush-notifier.service)" = active
    push '{"id":"desk-1","title":"to the desk","priority":5}'
    await 100 "the push on alice's desktop" shown "to the desk"
    check "intrapush-notifier: the push shown by the notification server on alice's session bus" shown "to the desk"
    check_that "intrapush-notifier: priority 5 shown as critical (urgency 2)" \
        'grep -F "\"to the desk\"" "$(ct_path /home/alice/notify.log)" | grep -F "\"urgency\": 2" >/dev/null'
    # Its id is the number of notifications the server had been asked for by then.
    local id
    id=$(grep -c ' Notify "intrapush" 0 ' "$(ct_path /home/alice/notify.log)")
    as_alice busctl --user call org.freedesktop.Notifications /org/freedesktop/Notifications \
        org.freedesktop.DBus.Mock EmitSignal sssav org.freedesktop.Notifications ActionInvoked us 2 \
        u "$id" s mark-read || fail "emitting ActionInvoked mark-read"
    await 100 "the read receipt of desk-1 at the server" upstream_has desk-1
    check "intrapush-notifier: Mark as read reached the server as a read receipt" upstream_has desk-1
}
end_desktop_session() {
    as_alice systemctl --user stop intrapush-notifier.service notification-server.service
    inside loginctl disable-linger alice
}

cleanup() {
    local status=$?
    if ((failures > 0 || status != 0)) && [[ -n $leader ]] && kill -0 "$leader" 2>/dev/null; then
        echo "--- the container's journal for intrapush (last 40 lines) ---"
        inside journalctl -u intrapush -n 40 --no-pager 2>&1 || true
    fi
    if [[ -n $nspawn_pid ]] && kill -0 "$nspawn_pid" 2>/dev/null; then
        # SIGTERM asks nspawn to power the container off; KILL if it has not within 20 s.
        kill -TERM "$nspawn_pid" 2>/dev/null || true
        timeout 20 tail --pid="$nspawn_pid" -f /dev/null || kill -KILL "$nspawn_pid" 2>/dev/null || true
        wait "$nspawn_pid" 2>/dev/null || true
    fi
    if [[ -n $server_pid ]]; then
        kill -TERM "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    repo_stop
    stop_tls_front
    rm -rf "$scratch"
    exit "$status"
}

# --- the unit's state between stages, and the journal ---------------------------------------------
# fresh_unit: a stage starts from a known state of the units, whatever the stages before did to
# them (a failed state, a count of restarts): their results are reset, nothing else.
fresh_unit() { inside systemctl reset-failed intrapush.service intrapush.socket 2>/dev/null || true; }

# The journal's lines at warning or above must each be a test's own doing: a stage that provokes
# one says so first (expect_warning), and journal_window_check fails on any other line since the
# window began: intrapush's units, what systemd says of them and what their processes logged,
# libdispatch's notes through syslog included.
expected_warnings=()
journal_cursor=""
expect_warning() { expected_warnings+=("$1"); }
journal_window_start() {
    journal_cursor=$(inside journalctl -n 0 --show-cursor -q --no-pager | sed -n 's/^-- cursor: //p')
}
journal_unexpected() {
    local lines
    lines=$(inside journalctl -u intrapush.service -u intrapush.socket -p warning -q --no-pager \
        ${journal_cursor:+--after-cursor="$journal_cursor"} 2>&1 || true)
    local pattern
    for pattern in "${expected_warnings[@]}"; do
        lines=$(grep -vF -- "$pattern" <<<"$lines" || true)
    done
    printf '%s' "$lines"
}
journal_window_check() {
    local unexpected
    unexpected=$(journal_unexpected)
    check "$1: no line at warning or above in the journal that a test did not cause" test -z "$unexpected"
    [[ -z $unexpected ]] || head -20 <<<"$unexpected" | sed 's/^/      /'
}
