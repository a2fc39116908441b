#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# intrapush demo: the reference server and the daemon on loopback, three pushes end to end.
#
# Builds what is missing, starts intrapush-devserver on a free port with a random token, starts
# intrapushd against it, pushes three notifications, shows them with `intrapush list`, `show` and
# `status` and what the server saw, then stops both with SIGTERM. Everything lives in one
# temporary directory, removed on any exit, together with every process the script started.
set -euo pipefail

cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}

# Bounds for every wait, in tenths of a second: a demo that hangs teaches nothing.
readonly connect_bound=200 ack_bound=200 start_bound=300 stop_bound=50

workdir=""
server_pid=""
daemon_pid=""

step() { printf '\n==> %s\n' "$*"; }
fail() { printf 'demo: %s\n' "$*" >&2; exit 1; }

# Stops what is still running (TERM, then KILL after the bound) and removes the work directory.
cleanup() {
    local status=$?
    local pid tries
    for pid in "$daemon_pid" "$server_pid"; do
        [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || continue
        kill -TERM "$pid" 2>/dev/null || true
        for ((tries = 0; tries < stop_bound; tries++)); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    [[ -n $workdir ]] && rm -rf "$workdir"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A number member of the server's /stats JSON (flat keys, no nesting for the ones we read).
stat() {
    local pattern="\"$1\":([0-9]+)"
    [[ $2 =~ $pattern ]] && echo "${BASH_REMATCH[1]}" || echo 0
}

stats() { "$devserver" stats --server "$server_address"; }

# Polls `condition` every 0.1 s up to `bound` tenths, failing early when the daemon died.
await() {
    local bound=$1 what=$2 tries
    shift 2
    for ((tries = 0; tries < bound; tries++)); do
        "$@" && return 0
        if [[ -n $daemon_pid ]] && ! kill -0 "$daemon_pid" 2>/dev/null; then
            cat "$workdir/intrapushd.log" >&2 || true
            fail "intrapushd exited while waiting for $what"
        fi
        sleep 0.1
    done
    [[ -f $workdir/intrapushd.log ]] && cat "$workdir/intrapushd.log" >&2
    fail "gave up waiting for $what after $((bound / 10)) s"
}

is_connected() { (($(stat connections_open "$(stats)") >= 1)); }
all_acknowledged() { (($(stat acked "$(stats)") >= 3)); }
heartbeat_seen() { (($(stat heartbeats "$(stats)") >= 1)); }

step "building intrapushd, intrapush and intrapush-devserver (swift build)"
"$swift" build
bin=$("$swift" build --show-bin-path)
devserver=$bin/intrapush-devserver
daemon=$bin/intrapushd
cli=$bin/intrapush

# The demo must not pick up an operator's overrides or a systemd context from the caller.
while read -r variable; do unset "$variable"; done < <(compgen -e | grep '^INTRAPUSH_' || true)
unset NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID CREDENTIALS_DIRECTORY STATE_DIRECTORY
# The demo server is on loopback: a proxy from the environment (which the daemon honours) must not
# come between them.
unset http_proxy https_proxy HTTPS_PROXY no_proxy NO_PROXY

workdir=$(mktemp -d "${TMPDIR:-/tmp}/intrapush-demo.XXXXXX")
(
    umask 077
    od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$workdir/token"
)

step "starting intrapush-devserver on 127.0.0.1, free port, random token"
# --token-file keeps the token out of the process arguments, as the daemon does. Its output file
# is made first: the background job opens it only once it runs, after the first read below.
: >"$workdir/devserver.out"
"$devserver" serve --listen 127.0.0.1:0 --token-file "$workdir/token" \
    --verify-database "$workdir/notifications.sqlite3" \
    >"$workdir/devserver.out" 2>"$workdir/devserver.log" &
server_pid=$!
server_address=""
for ((tries = 0; tries < start_bound; tries++)); do
    server_address=$(sed -n 's/^listening on //p' "$workdir/devserver.out")
    [[ -n $server_address ]] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$workdir/devserver.log" >&2; fail "intrapush-devserver exited"; }
    sleep 0.1
done
[[ -n $server_address ]] || fail "intrapush-devserver did not report its address"
echo "listening on $server_address"

step "writing the demo configuration"
cat >"$workdir/intrapush.conf" <<EOF
# intrapush demo: every key not set here has its default (see config/intrapush.conf).
host = "$server_address"
org = "acme"
token_file = "$workdir/token"
database = "$workdir/notifications.sqlite3"
# Short, so that heartbeats show within the demo; the default is 10 s.
heartbeat_interval = "1s"
EOF
cat "$workdir/intrapush.conf"
"$daemon" --check-config --config "$workdir/intrapush.conf" >/dev/null

step "starting intrapushd"
"$daemon" --config "$workdir/intrapush.conf" 2>"$workdir/intrapushd.log" &
daemon_pid=$!
await "$connect_bound" "the daemon to connect" is_connected
echo "connected"

step "pushing 3 notifications"
"$devserver" push --server "$server_address" \
    '{"id":"demo-1","title":"Build finished","body":"main is green"}' >/dev/null
"$devserver" push --server "$server_address" \
    '{"id":"demo-2","title":"Grüße aus Zürich","body":"Ünïcödé ✓ — 日本語もどうぞ"}' >/dev/null
"$devserver" push --server "$server_address" \
    '{"id":"demo-3","title":"Maintenance","body":"Printer on floor 3 is back"}' >/dev/null
await "$ack_bound" "3 acknowledgements" all_acknowledged
echo "all 3 acknowledged"

step "what arrived: intrapush list --database $workdir/notifications.sqlite3"
# The CLI finds the database like the daemon does; --database (or INTRAPUSH_DATABASE) names it.
"$cli" list --database "$workdir/notifications.sqlite3"
rows=$("$cli" count --database "$workdir/notifications.sqlite3")
((rows == 3)) || fail "intrapush count says $rows notifications, expected 3"

step "one of them in full: intrapush show 2"
"$cli" show 2 --database "$workdir/notifications.sqlite3"

step "the daemon's live state: INTRAPUSH_DATABASE=... intrapush status"
INTRAPUSH_DATABASE="$workdir/notifications.sqlite3" "$cli" status

step "a message to the server: intrapush send (printed once stored; the server acknowledges it)"
db="$workdir/notifications.sqlite3"
"$cli" send --database "$db" '{"id":"demo-hello","text":"hello from the host"}'

step "a request and its reply: the server is told the answer, intrapush request prints it"
"$devserver" upstream-reply --server "$server_address" --to demo-question '{"answer":42}' >/dev/null
reply=$("$cli" request --database "$db" --timeout 10s '{"id":"demo-question","question":"the answer?"}')
echo "$reply"
[[ $reply == '{"id":"demo-question","reply":{"answer":42}}' ]] || fail "unexpected reply: $reply"

step "what went to the server: intrapush outbox"
"$cli" outbox --database "$db"

step "what the server saw (GET /stats)"
await "$connect_bound" "a heartbeat" heartbeat_seen
report=$(stats)
echo "$report"
echo "connections: $(stat connections_total "$report"), heartbeats: $(stat heartbeats "$report"),"\
    "pushes: $(stat pushes_queued "$report"), acknowledged: $(stat acked "$report"),"\
    "acknowledged before commit: $(stat acks_before_commit "$report")"
(($(stat acks_before_commit "$report") == 0)) || fail "the server saw an acknowledgement before its commit"

step "stopping intrapushd (SIGTERM)"
kill -TERM "$daemon_pid"
daemon_status=0
wait "$daemon_pid" || daemon_status=$?
daemon_pid=""
echo "intrapushd exited with status $daemon_status"
echo
echo "intrapush status, after the stop:"
"$cli" status --database "$workdir/notifications.sqlite3" | sed 's/^/    /'
echo "close code the server saw last: $(stat last_close_code "$(stats)")"
echo "intrapushd's log (the <N> prefix is the journal priority):"
sed 's/^/    /' "$workdir/intrapushd.log"
((daemon_status == 0)) || fail "intrapushd should exit 0 after SIGTERM"

step "stopping intrapush-devserver (SIGTERM)"
kill -TERM "$server_pid"
server_status=0
wait "$server_pid" || server_status=$?
server_pid=""
echo "intrapush-devserver exited with status $server_status"

step "done; removing $workdir"
