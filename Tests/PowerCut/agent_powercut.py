#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The power-cut test of the desktop agent's state: "no mark it accepted is lost".

A mark the person makes on the desktop ("Mark as read") while intrapushd is stopped lives only in
the agent's state file, `$XDG_STATE_HOME/intrapush/notifier-cursor` (line `unsent_reads=`), until
the daemon is back: a power cut that loses it loses the read for good. Each seeded round puts
XDG_STATE_HOME (and only it) on a cutfs mount (cutfs.py; `--strict` in about half the rounds:
names durable only once their directory is fsynced), without the `intrapush` directory, so that
its creation is tested too. On a private session bus with python-dbusmock's notification server
(Tests/Notifier/notifier_world.py), the devserver and the real daemon (database on a normal
disk), the real agent shows the pushes; the daemon is stopped (SIGTERM) and the test clicks
"mark-read" on one notification after another, each waited for in the state file read through
the mount. A random 0.3-1.5 s after the first click the power goes (`cut`, `cut torn` or `cut scatter`), the
agent is SIGKILLed and the same backing mounted again: the reboot. Then every accepted mark must
be in `unsent_reads`, and once the daemon and the agent start again, in the database
(`notification_reads`), after which `unsent_reads` is empty.
Accepted: seen in the state file before the cut. A rename is visible before the fsync of its
directory makes it durable, so in strict rounds the marks first seen in the last version read
before the cut are "in flight" (counted apart, not a failure); an earlier version is confirmed by
a later one, as the agent is one thread that finishes a save before it takes the next click.

    agent_powercut.py [--rounds 10] [--seed S] [--keep] [--binaries .build/release]
                      [--no-restart] [--naive-writer [no-fsync|fsync-file]]

--naive-writer is the self-check: naive_cursor_writer.py (temporary + rename without any fsync;
with fsync-file, the file fsynced but no directory) stands in for the agent under the same
clicks, cut and checks, which must report lost marks. Run as root with Debian's /usr/bin/python3
(dbus, dbusmock, fusepy). Exit 1 on any loss or failed step (--naive-writer: when none was lost);
failed rounds' directories are kept.
"""
import argparse
import contextlib
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "Notifier"))
import dbus  # noqa: E402
from harness import PYTHON, CutFSMount, finish, remove_round  # noqa: E402
from intrapush_test_support import wait_for  # noqa: E402
from notifier_world import World  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, os.pardir, os.pardir))
KINDS = ("cut", "torn", "scatter")
PUSHES, BATCH = 200, 20  # shown in batches no larger than --catch-up, so never summarised


def read_unsent(path):
    """(the state file's text, None when there is none; the ids of its unsent_reads line)."""
    try:
        with open(path) as file:
            text = file.read()
    except FileNotFoundError:
        return None, []
    line = next((line for line in text.splitlines() if line.startswith("unsent_reads=")), "=")
    return text, [int(word) for word in line.split("=", 1)[1].split()]


def query(database, sql):
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        return db.execute(sql).fetchall()


def kill(process):
    if process is not None and process.poll() is None:
        process.kill()
        process.wait()


def show_pushes(world):
    """Pushes PUSHES notifications and waits for them on the desktop; [(desktop id, record id)]."""
    for start in range(0, PUSHES, BATCH):
        for k in range(start, start + BATCH):
            world.push({"id": f"m{k}", "title": f"m{k}"})
        wait_for("a batch on the desktop", lambda: len(world.notifications()) >= start + BATCH, timeout=20)
    records = dict(query(world.database, "SELECT message_id, id FROM notifications"))
    # python-dbusmock numbers its notifications 1, 2, ... in the order of the Notify calls.
    return [(number + 1, records[summary]) for number, summary in enumerate(world.summaries())]


def click_until_cut(clicks, click, cursor, fs, r, rng):
    """Clicks each in turn, waiting for it in the state file, until the power goes (a timer
    thread, r["delay"] s after the first click); returns the versions of unsent_reads read."""
    versions, cut = [], threading.Event()

    def power_cut():
        r["stats"] = fs.command("cut" if r["kind"] == "cut" else f"cut {r['kind']}")
        cut.set()

    def accepted(record):
        try:
            text, ids = read_unsent(cursor)
        except OSError:  # EIO: the power is off
            return cut.is_set()
        if text is None:  # not saved yet, or replaced between the open and the read: read again
            return cut.is_set()
        if not versions or ids != versions[-1]:
            versions.append(ids)
        return cut.is_set() or record in ids

    timer = threading.Timer(r["delay"], power_cut)
    timer.start()
    try:
        for desktop_id, record in clicks:
            if cut.is_set():
                break
            time.sleep(rng.uniform(0, 0.004))  # the pace varies: the cut finds the agent busy or idle
            click(desktop_id, record)
            r["clicks"] += 1
            wait_for(f"mark {record} in the state file", lambda: accepted(record), timeout=10, interval=0.005)
        wait_for("the power cut", cut.is_set, timeout=r["delay"] + 30)
    finally:
        timer.join()
    return versions


def one_round(number, seed, options, workdir):
    rng = random.Random(seed)
    strict, kind, delay = rng.random() < 0.5, KINDS[min(int(rng.random() * 3), 2)], rng.uniform(0.3, 1.5)
    root = os.path.join(workdir, f"r{number}")
    backing, mnt, commands = (os.path.join(root, name) for name in ("backing", "mnt", "ctl"))
    cursor = os.path.join(mnt, "intrapush", "notifier-cursor")
    os.makedirs(backing)  # empty: the agent makes `intrapush` in it
    r = dict(number=number, seed=seed, strict=strict, kind=kind, delay=delay, clicks=0, accepted=0,
             in_flight=0, in_flight_lost=0, lost=[], after="not read", delivered=None, problems=[], stats="")
    started, world, writer = time.monotonic(), None, None
    log = open(os.path.join(root, "cutfs.log"), "ab")
    try:
        if not options.naive_writer:
            world = World(options.binaries, root)
            world.env["XDG_STATE_HOME"] = mnt
        with CutFSMount(backing, mnt, commands, strict, seed, log) as fs:
            try:
                if world:
                    world.start_daemon()
                    writer = world.start_agent("--catch-up", str(BATCH))
                    clicks = show_pushes(world)
                    world.stop_daemon()  # the marks can only wait in the state file now

                    def click(desktop_id, record):
                        world.emit("ActionInvoked", "us", [dbus.UInt32(desktop_id), "mark-read"])
                else:
                    extra = ["--fsync-file"] if options.naive_writer == "fsync-file" else []
                    writer = subprocess.Popen([PYTHON, os.path.join(HERE, "naive_cursor_writer.py"),
                                               os.path.dirname(cursor)] + extra,
                                              stdin=subprocess.PIPE, stderr=log, text=True)
                    wait_for("the naive writer's file", lambda: os.path.exists(cursor))
                    clicks = [(record, record) for record in range(1, PUSHES + 1)]

                    def click(desktop_id, record):
                        with contextlib.suppress(BrokenPipeError):  # it died of the cut
                            writer.stdin.write(f"{record}\n")
                            writer.stdin.flush()
                rng.shuffle(clicks)
                versions = click_until_cut(clicks, click, cursor, fs, r, rng)
            finally:
                kill(writer)
        seen = set().union(*versions)
        in_flight = set(versions[-1]) - set().union(*versions[:-1]) if strict and versions else set()
        accepted = seen - in_flight
        r.update(accepted=len(accepted), in_flight=len(in_flight))

        with CutFSMount(backing, mnt, commands, strict, seed, log):  # the reboot
            text, after = read_unsent(cursor)
            r["after"] = "no file" if text is None else f"{len(after)} unsent" if text else "empty file"
            r["lost"] = sorted(accepted - set(after))
            r["in_flight_lost"] = len(in_flight - set(after))
            phantoms = set(after) - {record for _, record in clicks[:r["clicks"]]}
            if phantoms:
                r["problems"].append(f"marks never made: {sorted(phantoms)[:5]}")
            if world and not options.no_restart:  # end to end: the marks reach the daemon
                r["delivered"] = False
                marked = lambda: {row[0] for row in query(  # noqa: E731
                    world.database, "SELECT notification_id FROM notification_reads")}
                world.start_daemon()
                wait_for("the killed agent's bus name to go",
                         lambda: not world.bus.name_has_owner("org.intrapush.Notifier"))
                try:
                    world.start_agent("--catch-up", str(BATCH))
                    wait_for("the surviving marks in the database", lambda: set(after) <= marked(), timeout=20)
                    wait_for("unsent_reads empty once the daemon took them",
                             lambda: read_unsent(cursor)[1] == [], timeout=10)
                    world.stop_agent()
                finally:
                    kill(world.agent)  # never leave the mount busy
                world.stop_daemon()
                r["delivered"] = accepted <= marked()
    except AssertionError as error:  # a wait timed out, or the agent did not exit 0
        r["problems"].append(str(error))
    except Exception as error:  # noqa: BLE001 -- the round fails, the others still run
        r["problems"].append(f"{type(error).__name__}: {error}")
    finally:
        if world:
            world.close()
        log.close()
    r["seconds"] = time.monotonic() - started
    r["passed"] = not r["lost"] and not r["problems"] and r["delivered"] is not False
    return r


def describe(r):
    kind = ("strict " if r["strict"] else "plain  ") + f"{r['kind']:7}"
    line = (f"round {r['number']} seed={r['seed']} {kind} after {r['delay']:.2f}s: clicks={r['clicks']} "
            f"accepted={r['accepted']} lost={len(r['lost'])} in_flight={r['in_flight']} (lost "
            f"{r['in_flight_lost']}) after reboot: {r['after']}, delivered "
            f"{ {None: '-', True: 'yes', False: 'NO'}[r['delivered']] } {r['seconds']:.1f}s "
            f"{'ok' if r['passed'] else 'FAILED'}" + (f" first lost {r['lost'][:5]}" if r["lost"] else ""))
    return "\n    ".join([line, *r["problems"], f"at cut: {r['stats']}"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=None, help="round i uses seed+i")
    parser.add_argument("--keep", action="store_true", help="keep every round's directory")
    parser.add_argument("--binaries", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--no-restart", action="store_true", help="no daemon and agent after the reboot")
    parser.add_argument("--naive-writer", nargs="?", const="no-fsync", choices=["no-fsync", "fsync-file"],
                        help="self-check: a writer that is not durable, in place of the agent, must lose marks")
    options = parser.parse_args()
    options.binaries = os.path.abspath(options.binaries)
    seed = options.seed if options.seed is not None else random.randrange(1, 10 ** 6)
    writer = f"naive writer, {options.naive_writer}" if options.naive_writer else f"binaries {options.binaries}"
    print(f"seed {seed}; {writer}", flush=True)
    workdir = tempfile.mkdtemp(prefix="agent-powercut-", dir="/var/tmp")
    results = []
    for i in range(options.rounds):
        r = one_round(i + 1, seed + i, options, workdir)
        results.append(r)
        print(describe(r), flush=True)
        expected = r["passed"] or (options.naive_writer and not r["problems"])
        if expected and not options.keep:
            remove_round(workdir, i + 1)

    n = len(results)
    total = lambda key: sum(r[key] if isinstance(r[key], int) else len(r[key]) for r in results)  # noqa: E731
    print(f"rounds: {n} (strict {sum(r['strict'] for r in results)}, torn {sum(r['kind'] == 'torn' for r in results)}, "
          f"out of order {sum(r['kind'] == 'scatter' for r in results)})")
    print(f"marks accepted: {total('accepted')} (clicks {total('clicks')})")
    print(f"marks lost: {total('lost')} (in {sum(bool(r['lost']) for r in results)} rounds)")
    print(f"marks in flight at the cut (strict rounds): {total('in_flight')}, lost {total('in_flight_lost')}")
    if not options.naive_writer and not options.no_restart:
        print(f"delivered to the daemon after the reboot: {sum(r['delivered'] is True for r in results)}/{n}")
    print(f"seconds per round (mean): {sum(r['seconds'] for r in results) / max(n, 1):.1f}")
    failed = [r for r in results if not r["passed"]]
    if options.naive_writer:
        failed = [r for r in results if r["problems"]] or ([] if total("lost") else results)
        print(f"self-check: the naive writer lost {total('lost')} accepted marks -> "
              f"{'NOT as expected' if failed else 'the check can fail, as expected'}")
    return finish(workdir, failed, options.keep)


if __name__ == "__main__":
    raise SystemExit(main())
