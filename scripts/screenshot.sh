#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What a person sees: dunst (a real notification server) under Xvfb, the devserver, the release
# daemon and intrapush-notifier on a private session bus; three pushes, then a screenshot of the
# corner where dunst shows them. Usage: scripts/screenshot.sh [BIN_DIR] [OUT.png]
set -euo pipefail
cd "$(dirname "$0")/.."
bins=$(realpath "${1:-.build/release}")
out=${2:-docs/notifier-screenshot.png}
missing=""
for package in dunst xvfb x11-apps imagemagick dbus-daemon fonts-dejavu-core; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing="$missing $package"
done
if [[ -n $missing ]]; then
    sudo=""; [[ $(id -u) == 0 ]] || sudo=sudo
    $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/intrapush-screenshot.XXXXXX")
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

display=:$((90 + RANDOM % 100))
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
pids+=($!)
export DISPLAY=$display HOME=$work XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config
eval "$(dbus-daemon --session --fork --print-address=1 --print-pid=1 | { read -r a; read -r p; echo "export DBUS_SESSION_BUS_ADDRESS=$a; bus_pid=$p"; })"
pids+=("$bus_pid")
for _ in $(seq 100); do xdpyinfo -display "$display" >/dev/null 2>&1 && break; sleep 0.05; done

mkdir -p "$work/config/dunst"
cat >"$work/config/dunst/dunstrc" <<'DUNSTRC'
[global]
    font = DejaVu Sans 11
    width = 420
    origin = top-right
    offset = 16x16
    frame_width = 2
    frame_color = "#5e81ac"
    separator_height = 2
    padding = 10
    horizontal_padding = 12
    gap_size = 8
    markup = full
    format = "<b>%s</b>\n%b"
    show_indicators = yes
    background = "#2e3440"
    foreground = "#eceff4"
[urgency_low]
    background = "#3b4252"
    foreground = "#d8dee9"
    timeout = 0
[urgency_normal]
    timeout = 0
[urgency_critical]
    background = "#bf616a"
    foreground = "#ffffff"
    frame_color = "#ffffff"
    timeout = 0
DUNSTRC
dunst -config "$work/config/dunst/dunstrc" >"$work/dunst.log" 2>&1 &
pids+=($!)

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bins/intrapush-devserver" serve --listen "127.0.0.1:$port" --token tok >"$work/devserver.log" 2>&1 &
pids+=($!)
cat >"$work/intrapush.conf" <<CONF
host = "127.0.0.1:$port"
org = "acme"
token = "tok"
database = "$work/notifications.sqlite3"
CONF
for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/stats" >/dev/null 2>&1 && break; sleep 0.05; done
"$bins/intrapushd" --config "$work/intrapush.conf" >"$work/daemon.log" 2>&1 &
pids+=($!)
"$bins/intrapush-notifier" --database "$work/notifications.sqlite3" >"$work/notifier.log" 2>&1 &
pids+=($!)
for _ in $(seq 200); do [[ -e $work/notifications.sqlite3 ]] && break; sleep 0.05; done

push() { curl -fsS -X POST --data-binary "$1" "http://127.0.0.1:$port/push" >/dev/null; }
push '{"id":"s-1","title":"Backup finished","body":"All 3 volumes of fileserver-02 were copied in 14 min.","priority":"low"}'
push '{"id":"s-2","title":"Team meeting moved to 15:00","body":"Room 4.12 — the agenda is on the intranet.","click":"https://intranet.corp.example/agenda"}'
push '{"id":"s-3","title":"Disk almost full on db-01","body":"/var is 97% full (12 GiB left). Please act now.","priority":5}'
for _ in $(seq 200); do [[ $(dunstctl count displayed 2>/dev/null) == 3 ]] && break; sleep 0.05; done
[[ $(dunstctl count displayed) == 3 ]] || { echo "screenshot: dunst shows $(dunstctl count displayed) of 3" >&2; cat "$work/notifier.log" >&2; exit 1; }
sleep 0.3  # dunst draws after it counts
mkdir -p "$(dirname "$out")"
xwd -root -display "$display" -silent | convert xwd:- -crop 470x245+810+0 +repage "$out"
echo "screenshot: $out"
