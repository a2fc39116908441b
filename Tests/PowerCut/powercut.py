#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The power-cut test of the daemon: does intrapushd keep what it acknowledged when the power
goes, and come back on what survived?

Each seeded round puts the daemon's database (and only it) on a cutfs mount (cutfs.py: unsynced
writes live in memory until fsync), has the server of push_server.py stream pushes to it, and a
sender thread run `intrapush send` in a loop and a marker thread `intrapush mark-read`, with
read receipts on (`read_receipt_text`). After a random 0.5–2.5 s from the connection (in
every other strict round 0–1 s from the daemon's start, which creates the database's directory
and the database: are they durable?) the power goes (`cut`, `cut torn` or `cut scatter`, a third
of the rounds each), the daemon and the CLI in flight are SIGKILLed, and the same backing is
mounted again: the reboot. Then:
- PRAGMA integrity_check is ok (no database at all is ok only if nothing was acknowledged);
- every push the server saw acknowledged is in `notifications`;
- every `intrapush send` that exited 0 is in `outbox`;
- every `intrapush mark-read` answered "marked" (marker.py, beside the sender) is read: while
  pushes stream, the daemon makes a mark durable with the next push's sync, not one of its own;
- every read receipt the server received names a push that is stored and read: a receipt leaves
  only once its mark is durable, so none upstream speaks of a mark the cut took back;
- the daemon starts on the database again and reconnects, the server receives every outbox
  message still queued or sent, every send that exited 0 has reached the server by then, and a
  new push is acknowledged; SIGTERM stops it with 0; every receipt received by then names a read
  push too, and every mark kept has its receipt at the server.
Strict rounds (cutfs --strict) make a name durable only once its directory is fsynced.
Burst rounds (--burst-rounds, strict, after the others) have no sender: the server sends one
burst of BURST pushes at once, and the power goes as soon as half of them are acknowledged,
while the daemon still commits the rest. Its batches are then large enough to be synced beside
its push loop, not inside their commits, and no other write syncs them meanwhile: this checks
that each is synced before its acknowledgements go.
Restart rounds (--restart-rounds, strict) lower the checkpointer's threshold
(INTRAPUSH_TEST_CHECKPOINT_THRESHOLD) so that the write-ahead log starts over inside bursts, and
arm the cut to land inside the batch that starts it over, out of order (`arm scatter`:
restart_rounds.py says how and why). Rounds without the checkpointer (--no-checkpointer-rounds,
strict) do the same with INTRAPUSH_TEST_NO_CHECKPOINTER: SQLite's own checkpoint, inside the
commits, starts the log over.

    powercut.py [--rounds 30] [--strict-rounds 10] [--seed S] [--no-first-second] [--keep]
                [--burst-rounds 2] [--restart-rounds 8] [--no-checkpointer-rounds 4]
                [--binaries .build/release]

Run as root with Debian's /usr/bin/python3 (python3-fusepy). Exit 1 on any loss, a database
that is not intact, a failed restart, an outbox message that never reached the server or a read
receipt upstream for a mark that was lost; the directories of failed rounds are kept. A round is
replayed with `--seed S --rounds 1`, plus `--strict-rounds 1` for a strict one (the seed fixes
the cut's moment and kind, not how far the daemon got by then).
"""
import argparse
import os
import random
import shutil
import sqlite3
import tempfile
import time

import restart_rounds
from harness import CutFSMount, finish, remove_round
from intrapush_test_support import daemon_environment, start_daemon, stop, wait_for
from push_server import ACK_TEXT, RECEIPT_TEXT, UPSTREAM_ACK, PushServer
from marker import Marker
from sender import Sender

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BURST = 4000
KINDS = ("cut", "torn", "scatter")
# Frames not yet copied back that start a checkpoint in the restart rounds and the rounds without
# the checkpointer: a burst's batch is more, so the log can start over after any of them.
THRESHOLD = 8
SWITCHES = {
    "restart": {"INTRAPUSH_TEST_CHECKPOINT_THRESHOLD": str(THRESHOLD)},
    "no-checkpointer": {"INTRAPUSH_TEST_CHECKPOINT_THRESHOLD": str(THRESHOLD),
                        "INTRAPUSH_TEST_NO_CHECKPOINTER": "1"},
}
CONFIG = """host = "127.0.0.1:{port}"
org = "acme"
token = "powercut-token"
database = "{database}"
heartbeat_interval = "1s"
reconnect_min = "100ms"
reconnect_max = "1s"
connect_timeout = "2s"
log_level = "info"
ack_text = "{ack}"
upstream_ack_text = "{upstream_ack}"
read_receipt_text = '{receipt}'
"""


def inspect(database):
    """After the reboot: (integrity_check's verdict, push ids stored, {outbox id: state},
    {notification id read: its message id}).

    Read from a copy of the database and its logs (not the -shm, which recovery rebuilds), opened
    for writing: a cut in the daemon's first transaction leaves a hot rollback journal, which only a
    writer may roll back (read-only, SQLite answers "attempt to write a readonly database"). The
    files on the mount stay as the cut left them, so that the daemon's own recovery runs next."""
    if not os.path.exists(database):
        return "no database", set(), {}, {}
    with tempfile.TemporaryDirectory(prefix="inspect-") as copies:
        for suffix in ("", "-wal", "-journal"):
            if os.path.exists(database + suffix):
                shutil.copyfile(database + suffix, os.path.join(copies, "copy.sqlite3" + suffix))
        db = sqlite3.connect(os.path.join(copies, "copy.sqlite3"), isolation_level=None)
        try:
            verdict = "; ".join(row[0] for row in db.execute("PRAGMA integrity_check"))
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            pushes = {row[0] for row in db.execute("SELECT message_id FROM notifications")} \
                if "notifications" in tables else set()
            outbox = dict(db.execute("SELECT message_id, state FROM outbox")) if "outbox" in tables else {}
            read = dict(db.execute("SELECT r.notification_id, n.message_id FROM notification_reads r "
                                   "LEFT JOIN notifications n ON n.id = r.notification_id")) \
                if "notification_reads" in tables else {}
            return verdict, pushes, outbox, read
        except sqlite3.DatabaseError as error:
            return f"error: {error}", set(), {}, {}
        finally:
            db.close()


def receipts_for_lost_marks(receipts, read):
    """The message ids named by read receipts the server received (`receipts`: {receipt id:
    message id}) that no notification read after the reboot has (`read`, from inspect): a receipt
    upstream for a mark the cut took back, or for a push it took back with its mark."""
    kept = set(read.values())
    return sorted({message_id for message_id in receipts.values() if message_id not in kept})


def one_round(number, seed, strict, first_second, options, workdir, variant=""):
    """`variant`: "" (a stream of pushes, sends and marks), "burst", "restart" or "no-checkpointer"."""
    rng = random.Random(seed)
    kind = KINDS[min(int(rng.random() * 3), 2)] if variant in ("", "burst") else "scatter"
    delay = rng.uniform(0.0, 1.0) if first_second else rng.uniform(0.5, 2.5)
    burst, restarts = variant == "burst", variant in ("restart", "no-checkpointer")
    root = os.path.join(workdir, f"r{number}")
    backing, mountpoint, commands = (os.path.join(root, name) for name in ("backing", "mnt", "ctl"))
    database = os.path.join(mountpoint, "state", "notifications.sqlite3")
    os.makedirs(backing)  # the daemon creates `state` in it
    server = PushServer(number, one_burst=BURST if burst else 0, manual=restarts)
    config = os.path.join(root, "intrapush.conf")
    with open(config, "w") as file:
        file.write(CONFIG.format(port=server.port, database=database, ack=ACK_TEXT,
                                 upstream_ack=UPSTREAM_ACK, receipt=RECEIPT_TEXT))
    environment = daemon_environment(root, os.environ)
    environment.update(SWITCHES.get(variant, {}))
    daemon_binary = os.path.join(options.binaries, "intrapushd")
    r = dict(number=number, seed=seed, strict=strict, kind=kind, first_second=first_second, variant=variant,
             delay=delay, acked=0, lost=0, verdict="not checked", intact=False, sends=0, sends_lost=0,
             waiting=0, delivered=False, restarted=False, problems=[], stats="", armed_cut="",
             wal_restarts=0, marks=0, marks_lost=0, receipts=0, receipts_before_cut=0, receipts_lost=0,
             first_receipts_lost=[])
    started = time.monotonic()
    log = open(os.path.join(root, "log"), "ab")  # the daemon's and cutfs's
    sends_log = open(os.path.join(root, "sends.log"), "ab")  # the CLI's complaints
    try:
        with CutFSMount(backing, mountpoint, commands, strict, seed, log) as fs:
            daemon = start_daemon(daemon_binary, config, environment, stderr=log)
            launched = time.monotonic()
            sender = Sender(os.path.join(options.binaries, "intrapush"), config, environment,
                            number, sends_log)
            marker = Marker(os.path.join(options.binaries, "intrapush"), config, environment, sends_log)
            try:
                if burst:
                    wait_for("half the burst acknowledged", lambda: daemon.poll() is not None
                             or len(server.acked_ids()) >= BURST // 2, timeout=30)
                elif restarts:
                    wait_for("the daemon to connect",
                             lambda: daemon.poll() is not None or server.latest() > 0, timeout=20)
                    r["armed_cut"] = restart_rounds.drive(server, fs, daemon, rng)
                elif first_second:
                    sender.start()
                    marker.start()
                    time.sleep(max(0.0, launched + delay - time.monotonic()))
                else:
                    wait_for("the daemon to connect",
                             lambda: daemon.poll() is not None or server.latest() > 0, timeout=20)
                    if daemon.poll() is not None:
                        r["problems"].append(f"the daemon exited {daemon.returncode} before connecting")
                    else:
                        sender.start()
                        marker.start()
                        time.sleep(delay)  # the random moment is the point: no condition to wait for
                # Read before the cut: a daemon may well exit 74 once the power is gone.
                exited_before_cut = daemon.poll()
                if not r["armed_cut"]:
                    fs.command("cut" if kind == "cut" else f"cut {kind}")
                r["stats"] = fs.command("last-cut")[3:]
                r["wal_restarts"] = restart_rounds.figures(fs)["wal_restarts"]
            finally:
                daemon.kill()
                daemon.wait()
                sender.halt()
                marker.halt()
            if first_second and exited_before_cut is not None:
                r["problems"].append(f"the daemon exited {exited_before_cut} before the cut")
            # Acknowledgements already in the socket's buffer count: the daemon sent them.
            wait_for("the server to see the daemon go", lambda: server.open_connections() == 0)
        acked, sends, marks, before = server.acked_ids(), list(sender.ok), list(marker.ok), server.latest()
        r["receipts_before_cut"] = len(server.receipts_received())
        server.manual = False  # after the reboot the server streams, whatever the round
        r.update(acked=len(acked), sends=len(sends), send_failures=sender.failures, marks=len(marks))

        with CutFSMount(backing, mountpoint, commands, strict, seed, log):  # the reboot
            verdict, pushes, outbox, read = inspect(database)
            r["verdict"] = verdict
            # No database at all is a state the daemon may be in when nothing depended on it yet.
            r["intact"] = verdict == "ok" or (verdict == "no database" and not acked and not sends and not marks)
            r["lost"] = len(acked - pushes)
            r["first_lost"] = sorted(acked - pushes)[:3]
            r["sends_lost"] = sum(message_id not in outbox for message_id in sends)
            r["marks_lost"] = sum(row not in read for row in marks)
            check_receipts(r, server, read)  # those sent before the cut, in case the restart fails
            waiting = {key for key, state in outbox.items() if state in ("queued", "sent")}
            r["waiting"] = len(waiting)
            daemon = start_daemon(daemon_binary, config, environment, stderr=log)
            try:
                wait_for("the daemon to reconnect", lambda: daemon.poll() is not None
                         or server.latest() > before, timeout=20)
                if daemon.poll() is not None:
                    raise AssertionError(f"the daemon exited {daemon.returncode} after the reboot")
                latest = server.latest()
                wait_for("a push acknowledged after the restart",
                         lambda: server.acked_on(latest) > 0, timeout=20)
                r["restarted"] = True
                wait_for("the waiting outbox messages at the server",
                         lambda: waiting <= server.received_ids(before), timeout=20)
                never = set(sends) - server.received_ids()
                r["delivered"] = not never
                if never:
                    r["problems"].append(f"{len(never)} sends never reached the server: {sorted(never)[:3]}")
                # Each kept mark's receipt was queued with it, so it has reached the server by now
                # (sent before the cut, or waiting): else the receipt check above saw nothing.
                unsent = {read[row] for row in marks if row in read} - set(server.receipts_received().values())
                if unsent:
                    r["problems"].append(f"{len(unsent)} receipts of kept marks never reached the server: "
                                         f"{sorted(unsent, key=str)[:3]}")
            finally:
                status = stop(daemon)
            if r["restarted"] and status != 0:
                r["restarted"] = False
                r["problems"].append(f"the restarted daemon exited {status} on SIGTERM")
            check_receipts(r, server, read)  # and those sent again after the restart
    except AssertionError as error:  # a wait timed out, or the restarted daemon exited
        r["problems"].append(str(error))
    except Exception as error:  # noqa: BLE001 -- the round fails, the others still run
        r["problems"].append(f"{type(error).__name__}: {error}")
    finally:
        server.close()
        log.close()
        sends_log.close()
    r["seconds"] = time.monotonic() - started
    r["passed"] = (r["lost"] == 0 and r["sends_lost"] == 0 and r["marks_lost"] == 0 and r["receipts_lost"] == 0
                   and r["intact"] and r["restarted"] and r["delivered"] and not r["problems"])
    return r


def check_receipts(r, server, read):
    """Counts the read receipts received so far and those naming a mark that was lost."""
    receipts = server.receipts_received()
    lost = receipts_for_lost_marks(receipts, read)
    r.update(receipts=len(receipts), receipts_lost=len(lost), first_receipts_lost=lost[:3])


def describe(r):
    kind = ("strict " if r["strict"] else "plain  ") + f"{r['kind']:7}"
    when = {"burst": "burst, half of it acknowledged",
            "restart": "restart", "no-checkpointer": "no checkpointer",
            }.get(r["variant"], f"{'first-second ' if r['first_second'] else ''}after {r['delay']:.2f}s")
    if r["variant"] in ("restart", "no-checkpointer"):
        when += {"burst": ", inside a burst that restarted the WAL", "later": ", at a later WAL restart",
                 "": ", cut after its bursts"}[r["armed_cut"]]
    when += f" (WAL restarts {r['wal_restarts']})"
    failures = ",".join(f"{code}:{count}" for code, count in sorted(r.get("send_failures", {}).items(), key=str))
    line = (f"round {r['number']} seed={r['seed']} {kind} {when}: acked={r['acked']} "
            f"lost={r['lost']} integrity={r['verdict']!r} sends={r['sends']} "
            f"(failed {failures or 0}) sends_lost={r['sends_lost']} marks={r['marks']} marks_lost={r['marks_lost']} "
            f"receipts={r['receipts']} ({r['receipts_before_cut']} before the cut) "
            f"receipts_lost={r['receipts_lost']} waiting={r['waiting']} "
            f"delivered={'yes' if r['delivered'] else 'NO'} "
            f"restarted={'yes' if r['restarted'] else 'NO'} {r['seconds']:.1f}s "
            f"{'ok' if r['passed'] else 'FAILED'}")
    if r["lost"]:
        line += f" first lost {r['first_lost']}"
    if r["receipts_lost"]:
        line += f" receipts for lost marks {r['first_receipts_lost']}"
    for problem in r["problems"]:
        line += f"\n    {problem}"
    return line + f"\n    at cut: {r['stats']}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--strict-rounds", type=int, default=10, help="of the rounds, cutfs --strict")
    parser.add_argument("--seed", type=int, default=None, help="round i uses seed+i")
    parser.add_argument("--no-first-second", dest="first_second", action="store_false",
                        help="no strict round cuts within 1 s of the daemon's start")
    parser.add_argument("--burst-rounds", type=int, default=2,
                        help="strict rounds after the others: one burst, cut once half acknowledged")
    parser.add_argument("--restart-rounds", type=int, default=8,
                        help="strict rounds after those: bursts that start the WAL over, cut inside one, out of order")
    parser.add_argument("--no-checkpointer-rounds", type=int, default=4,
                        help="the same after those, without the checkpointer")
    parser.add_argument("--keep", action="store_true", help="keep every round's directory")
    parser.add_argument("--binaries", default=os.path.join(ROOT, ".build", "release"))
    options = parser.parse_args()
    options.binaries = os.path.abspath(options.binaries)
    seed = options.seed if options.seed is not None else random.randrange(1, 10 ** 6)
    rounds, strict_rounds = options.rounds, min(options.strict_rounds, options.rounds)
    # The strict rounds spread evenly over the run; every other one cuts in the first second.
    strict = [int(k * rounds / strict_rounds) for k in range(strict_rounds)] if strict_rounds else []
    print(f"seed {seed}; binaries {options.binaries}", flush=True)
    workdir = tempfile.mkdtemp(prefix="powercut-", dir="/var/tmp")
    results = []
    for i in range(rounds):
        first = options.first_second and i in strict and strict.index(i) % 2 == 0
        r = one_round(i + 1, seed + i, i in strict, first, options, workdir)
        results.append(r)
        print(describe(r), flush=True)
        if r["passed"] and not options.keep:
            remove_round(workdir, i + 1)
    variants = (["burst"] * options.burst_rounds + ["restart"] * options.restart_rounds
                + ["no-checkpointer"] * options.no_checkpointer_rounds)
    for i, variant in enumerate(variants, start=rounds):
        r = one_round(i + 1, seed + i, True, False, options, workdir, variant=variant)
        results.append(r)
        print(describe(r), flush=True)
        if r["passed"] and not options.keep:
            remove_round(workdir, i + 1)

    n = len(results)
    total = lambda key: sum(r[key] for r in results)  # noqa: E731
    count = lambda predicate: sum(1 for r in results if predicate(r))  # noqa: E731
    print(f"rounds: {n} (strict {count(lambda r: r['strict'])}; cut {count(lambda r: r['kind'] == 'cut')}, "
          f"torn {count(lambda r: r['kind'] == 'torn')}, out of order {count(lambda r: r['kind'] == 'scatter')})")
    for variant, name in (("restart", "restart rounds"), ("no-checkpointer", "rounds without the checkpointer")):
        print(f"{name}: {count(lambda r: r['variant'] == variant)}, cut inside a burst that restarted the WAL in "
              f"{count(lambda r: r['variant'] == variant and r['armed_cut'] == 'burst')}, at a later restart in "
              f"{count(lambda r: r['variant'] == variant and r['armed_cut'] == 'later')}")
    print(f"pushes acknowledged: {total('acked')}")
    print(f"acknowledged but lost: {total('lost')}")
    print(f"integrity ok: {total('intact')}/{n}")
    print(f"restarted: {total('restarted')}/{n}")
    print(f"outbox sends acknowledged: {total('sends')}")
    print(f"outbox sends lost: {total('sends_lost')}")
    print(f"outbox delivered after restart: {total('delivered')}/{n}")
    print(f"marks answered: {total('marks')}")
    print(f"marks answered but lost: {total('marks_lost')}")
    print(f"rounds with the marker and read receipts: {count(lambda r: r['variant'] == '')} "
          f"(with marks answered {count(lambda r: r['variant'] == '' and r['marks'])})")
    print(f"read receipts received: {total('receipts')} ({total('receipts_before_cut')} before the cut)")
    print(f"read receipts naming a lost mark: {total('receipts_lost')}")
    print(f"seconds per round (mean): {total('seconds') / max(n, 1):.1f}")
    return finish(workdir, [r for r in results if not r["passed"]], options.keep)


if __name__ == "__main__":
    raise SystemExit(main())
