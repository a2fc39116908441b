#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""intrapush-notifier on a real session bus: a private dbus-daemon, python-dbusmock's
notification_daemon template standing in for the desktop's notification server (it records every
call and emits the signals a person's clicks would), the devserver, the real daemon and the real
agent. Each scenario gets all of them fresh. Prints a table; exits 1 on any failure.

Usage (Debian's python3, which has the dbus module): /usr/bin/python3 notifier_test.py --bin-dir DIR [--only a,b]
"""
import argparse
import grp
import os
import pwd
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

import dbus

from notifier_world import wait_for, expect, World, hint


# --- scenarios ---------------------------------------------------------------------------------

def scenario_arguments(world):
    """The call's arguments and hints; markup escaped while the server reads it, not after a
    server without it takes over; a link only when it is one a click may open."""
    world.start_daemon()
    world.start_agent()
    world.push({"id": "a1", "title": "Disk <full>", "body": "a & b <i>", "priority": 5, "click": "https://intra.example/d"})
    world.push({"id": "a2", "body": "\nfirst line\nsecond\nthird", "priority": "low"})
    world.push({"id": "a3", "title": "plain", "url": "javascript:alert(1)"})
    notes = wait_for("three notifications", lambda: len(world.notifications()) == 3 and world.notifications())
    first, second, third = notes
    expect(first[:3] == ("Disk <full>", "a &amp; b &lt;i&gt;", ["default", "Open", "mark-read", "Mark as read"]), f"first: {first}")
    expect(hint(first, "urgency") == 2 and first[4] == 0, f"priority 5 is critical and stays: {first}")
    expect(hint(first, "desktop-entry") == "intrapush-notifier", f"desktop-entry: {first}")
    expect(second[:3] == ("first line", "second\nthird", ["mark-read", "Mark as read"]), f"second: {second}")
    expect(hint(second, "urgency") == 0 and second[4] == -1, f"low: {second}")
    expect(third[2] == ["mark-read", "Mark as read"] and hint(third, "urgency") == 1, f"javascript: is no link: {third}")
    calls = world.mock_api.GetCalls()
    expect(all(str(c[1]) != "Notify" or str(c[2][0]) == "intrapush" for c in calls), "app_name is intrapush")
    # Another server, without body-markup, takes over: the agent asks again.
    world.stop_server()
    world.start_server("body actions")
    world.push({"id": "a4", "title": "t", "body": "x < y & z"})
    note = wait_for("the notification on the new server", lambda: world.notifications())[0]
    expect(note[1] == "x < y & z", f"no markup, nothing escaped: {note}")


def scenario_mark_read(world):
    """"Mark as read" marks it read through the daemon, whose read receipt reaches the server."""
    world.start_daemon()
    world.start_agent()
    world.push({"id": "r1", "title": "read me"})
    wait_for("the notification", lambda: world.summaries() == ["read me"])
    expect(world.stored("r1")[1] is None, "unread before the click")
    world.emit("ActionInvoked", "us", [dbus.UInt32(1), "mark-read"])
    wait_for("the read receipt at the server", lambda: '\\"message_id\\":\\"r1\\"' in world.upstream() or '"message_id":"r1"' in world.upstream())
    expect(world.stored("r1")[1] is not None, "read_at is set")


def scenario_open_link(world):
    """Clicking a notification with a link runs xdg-open with it (no shell) and counts as read."""
    opened = f"{world.dir}/opened"
    with open(f"{world.dir}/bin/xdg-open", "w") as script:
        script.write(f'#!/bin/sh\nprintf "%s\\n" "$@" > {opened}\n')
    os.chmod(f"{world.dir}/bin/xdg-open", 0o755)
    world.start_daemon()
    world.start_agent()
    link = "https://intra.example/a b?x=1&y=$(id)"
    world.push({"id": "o1", "title": "open", "click": "https://intra.example/ok?x=1&y=$(id)"})
    world.push({"id": "o2", "title": "bad", "click": "file:///etc/passwd"})
    wait_for("two notifications", lambda: len(world.notifications()) == 2)
    world.emit("ActionInvoked", "us", [dbus.UInt32(1), "default"])
    wait_for("xdg-open to run", lambda: os.path.exists(opened) and open(opened).read())
    expect(open(opened).read() == "https://intra.example/ok?x=1&y=$(id)\n", f"xdg-open got the link as one argument: {open(opened).read()!r}")
    wait_for("o1 to be read", lambda: world.stored("o1")[1] is not None)
    os.unlink(opened)
    world.emit("ActionInvoked", "us", [dbus.UInt32(2), "default"])
    world.emit("ActionInvoked", "us", [dbus.UInt32(2), "mark-read"])
    wait_for("o2 to be read", lambda: world.stored("o2")[1] is not None)
    expect(not os.path.exists(opened), "a file: link is never opened")
    del link


def scenario_dismiss(world):
    """Closed by the person (reason 2) is read only with --mark-read-on-dismiss; expired never."""
    world.start_daemon()
    world.start_agent("--mark-read-on-dismiss")
    for n in (1, 2):
        world.push({"id": f"d{n}", "title": f"d{n}"})
    wait_for("two notifications", lambda: len(world.notifications()) == 2)
    world.emit("NotificationClosed", "uu", [dbus.UInt32(2), dbus.UInt32(1)])
    world.emit("NotificationClosed", "uu", [dbus.UInt32(1), dbus.UInt32(2)])
    wait_for("d1 read after dismissal", lambda: world.stored("d1")[1] is not None)
    expect(world.stored("d2")[1] is None, "an expired notification is not read")
    world.stop_agent()
    world.start_agent()
    world.push({"id": "d3", "title": "d3"})
    wait_for("d3 shown", lambda: "d3" in world.summaries())
    world.emit("NotificationClosed", "uu", [dbus.UInt32(3), dbus.UInt32(2)])
    world.push({"id": "d4", "title": "d4"})
    wait_for("d4 shown (the dismissal was handled before)", lambda: "d4" in world.summaries())
    expect(world.stored("d3")[1] is None, "without the option a dismissal is not reading")


def scenario_catch_up(world):
    """Ten arrive while the agent is stopped: at start, one summary and the three newest, in order."""
    world.start_daemon()
    world.start_agent()
    world.push({"id": "c0", "title": "before"})
    wait_for("the first", lambda: world.summaries() == ["before"])
    world.stop_agent()
    for n in range(1, 11):
        world.push({"id": f"c{n}", "title": f"c{n}"})
    wait_for("ten stored", lambda: world.stored("c10"))
    world.mock_api.ClearCalls()
    world.start_agent()
    wait_for("four notifications", lambda: len(world.notifications()) >= 4)
    time.sleep(0.5)  # nothing more may come: this is the one wait on an absence
    summaries = world.summaries()
    expect(summaries == ["7 more unread", "c8", "c9", "c10"], f"catch-up: {summaries}")
    expect("intrapush list --unread" in world.notifications()[0][1], "the summary says how to see them")
    world.push({"id": "c11", "title": "c11"})
    wait_for("the next one, once", lambda: world.summaries() == ["7 more unread", "c8", "c9", "c10", "c11"])


def scenario_server_away(world):
    """The notification server goes away; what arrives meanwhile is shown when one is back."""
    world.start_daemon()
    world.start_agent()
    world.push({"id": "s1", "title": "s1"})
    wait_for("s1", lambda: world.summaries() == ["s1"])
    world.stop_server()
    world.push({"id": "s2", "title": "s2"})
    world.push({"id": "s3", "title": "s3"})
    wait_for("both stored", lambda: world.stored("s3"))
    world.start_server("body body-markup actions")
    wait_for("s2 and s3 on the new server", lambda: world.summaries() == ["s2", "s3"])


def scenario_no_database(world):
    """Started before the daemon ever ran, before even the database's directory exists: it looks
    for the daemon again now and then, subscribes once it answers, then shows the first push."""
    world.database = f"{world.dir}/var/lib/intrapush/notifications.sqlite3"
    with open(f"{world.dir}/intrapush.conf", "a") as out:
        out.write(f'database = "{world.database}"\n')
    config = open(f"{world.dir}/intrapush.conf").read().replace(
        f'database = "{world.dir}/notifications.sqlite3"\n', "")
    open(f"{world.dir}/intrapush.conf", "w").write(config)
    world.start_agent()
    expect(world.agent.poll() is None, "still running without a database")
    os.makedirs(os.path.dirname(world.database))
    world.start_daemon()
    world.push({"id": "n1", "title": "first ever"})
    wait_for("the first push", lambda: world.summaries() == ["first ever"])


def scenario_second_instance(world):
    """One agent per session: a second exits 0 saying so."""
    world.start_agent()
    second = subprocess.run([f"{world.bins}/intrapush-notifier", "--database", world.database],
                            env=world.env, capture_output=True, text=True, timeout=10)
    expect(second.returncode == 0, f"exit 0 (was {second.returncode})")
    expect("another intrapush-notifier runs" in second.stderr, f"says so: {second.stderr!r}")


def scenario_recipients(world):
    """Addressed pushes reach only their user or group; others and unaddressed ones as before."""
    user = pwd.getpwuid(os.getuid()).pw_name
    group = grp.getgrgid(os.getgid()).gr_name
    world.start_daemon()
    world.start_agent()
    world.push({"id": "p1", "title": "for someone else", "to": ["nobody-of-this-host"]})
    world.push({"id": "p2", "title": "for me", "to": user})
    world.push({"id": "p3", "title": "for my group", "to": ["x", group]})
    world.push({"id": "p4", "title": "for everyone"})
    world.push({"id": "p5", "title": "for no one", "to": 42})
    wait_for("p5 stored", lambda: world.stored("p5"))
    wait_for("three shown", lambda: len(world.summaries()) >= 3)
    world.push({"id": "p6", "title": "last"})
    wait_for("the last", lambda: "last" in world.summaries())
    expect(world.summaries() == ["for me", "for my group", "for everyone", "last"], f"shown: {world.summaries()}")


def scenario_daemon_away(world):
    """A mark made while the daemon is stopped waits, and reaches the server once it is back."""
    world.start_daemon()
    world.start_agent()
    world.push({"id": "w1", "title": "w1"})
    wait_for("w1", lambda: world.summaries() == ["w1"])
    world.stop_daemon()
    world.emit("ActionInvoked", "us", [dbus.UInt32(1), "mark-read"])
    wait_for("the mark to wait in the state file", lambda: "unsent_reads=1\n" in open(f"{world.dir}/state/intrapush/notifier-cursor").read())
    world.start_daemon()
    wait_for("the receipt at the server", lambda: "w1" in world.upstream(), timeout=15)
    expect(world.stored("w1")[1] is not None, "read_at is set")


def scenario_figures(world):
    """Not a check: commit → Notify latency, and the idle agent's CPU, wake-ups and memory."""
    world.start_daemon()
    world.start_agent()
    latencies = []
    for n in range(20):
        before = len(world.notifications())
        world.push({"id": f"f{n}", "title": f"f{n}"})
        row = wait_for("the row", lambda: world.stored(f"f{n}"))
        committed = time.monotonic()
        wait_for("its notification", lambda: len(world.notifications()) > before)
        latencies.append((time.monotonic() - committed) * 1000)
    stat = lambda: open(f"/proc/{world.agent.pid}/stat").read().split(")")[1].split()
    ticks = lambda: int(stat()[11]) + int(stat()[12])
    start = ticks()
    time.sleep(10)
    rss = [line.split()[1] for line in open(f"/proc/{world.agent.pid}/status") if line.startswith("VmRSS")][0]
    print(f"      figures: row seen committed → Notify seen: median {statistics.median(latencies):.1f} ms "
          f"(max {max(latencies):.1f}, n=20, both polled every 10 ms); idle 10 s: {ticks() - start} CPU ticks; RSS {rss} kB")
    del row


SCENARIOS = [
    ("arguments", scenario_arguments), ("mark-read", scenario_mark_read), ("open-link", scenario_open_link),
    ("dismiss", scenario_dismiss), ("catch-up", scenario_catch_up), ("server-away", scenario_server_away),
    ("no-database", scenario_no_database), ("second-instance", scenario_second_instance),
    ("recipients", scenario_recipients), ("daemon-away", scenario_daemon_away), ("figures", scenario_figures),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", default=".build/debug")
    parser.add_argument("--only", default="")
    options = parser.parse_args()
    bins = os.path.abspath(options.bin_dir)
    chosen = [s for s in SCENARIOS if not options.only or s[0] in options.only.split(",")]
    failed = 0
    for name, run in chosen:
        directory = tempfile.mkdtemp(prefix=f"intrapush-notifier-{name}-")
        world = World(bins, directory)
        started = time.monotonic()
        try:
            run(world)
            if world.agent is not None and world.agent.poll() is None:
                world.stop_agent()
            print(f"PASS  {name:16} {time.monotonic() - started:5.1f} s")
            shutil.rmtree(directory, ignore_errors=True)
        except Exception as error:  # noqa: BLE001 - every failure is reported, the run goes on
            failed += 1
            print(f"FAIL  {name:16} {error}")
            if not isinstance(error, AssertionError):
                traceback.print_exc()
            print(f"      logs in {directory}")
        finally:
            world.close()
    print(f"{len(chosen) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
