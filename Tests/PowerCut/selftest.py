#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The self-test of cutfs.py: does a power cut through it lose what it should, and only that?

For each synchronous mode (OFF, NORMAL, FULL) it runs seeded rounds: mount cutfs on a fresh
backing directory, start selftest_writer.py on it (WAL mode, one row per transaction, each
acknowledged in a log outside the mount once COMMIT returns), cut the power after a random
0.3-1.5 s (plain, torn or out of order: below), SIGKILL the writer, unmount, mount the same
backing again (the reboot), and check the database: PRAGMA integrity_check, and how many
acknowledged ids are missing.

What should come out: with FULL every commit is fsynced before COMMIT returns, so nothing
acknowledged is lost and the database is intact. With NORMAL, WAL commits are not fsynced (only
checkpoints sync the WAL), so acknowledged rows are lost; with OFF nothing is ever synced. A mode
passes when FULL lost nothing and every database is intact, and when NORMAL and OFF lost
something (else the cut bit nothing, and the tool is broken). Prints `N passed, N failed`.

A cut is plain (everything pending lost), `torn` or `scatter` (cutfs.py), a third of the rounds
each.

First, the stalled disk (`hold`, as stall.py uses it on the daemon): with a write pending, a
thread's fsync must wait while held, the backing file must not have the data yet, and a read of
the same file from another thread must answer meanwhile (the operations go on); after `release`
the fsync returns and the data is durable. Then a second held fsync must fail with EIO at a
`cut`, rather than wait for a release that will never come. It counts as one more check.

Then names (one more check): a file renamed over, and a file removed, while a reader holds it
open through the mount, must each change the backing directory in one step, as a disk's rename
and unlink do: no `.fuse_hidden…` file beside them, which a cut could leave in the old name's
place. The reader's handle still reads the old file.

Then writes out of order (REORDER, one more check): reorder_writer.py commits without SQLite's
sync and syncs the log itself before acknowledging, as the daemon does with a burst's batch, and
stops just after a commit that started the log over, before its own sync; the power goes there.
SQLite at OFF leaves the new header of the log unsynced: a `scatter` cut must lose acknowledged
rows or the database's integrity in some round, while a plain cut (nothing of the new log kept,
so nothing out of order) loses nothing. At NORMAL, which syncs the header, a `scatter` cut must
lose nothing. A file system that keeps writes in order could not catch that writer.

Then read receipts (RECEIPTS, one more check): receipt_writer.py marks pushes read in the
daemon's tables and sends each read receipt to push_server.py's server as soon as the mark is
committed, before any sync; the power goes after a random 0.3-1.5 s. powercut.py's receipt check
(a receipt at the server for a push not read after the reboot) must report some at NORMAL, and
none at FULL, which syncs each mark before its receipt goes.

    selftest.py [--rounds 5] [--modes OFF,NORMAL,FULL] [--strict] [--seed 1] [--keep]
                [--hold-only] [--reorder-rounds 10] [--receipt-rounds 2]

A round is replayed with its seed (`--seed S --rounds 1 --modes M`): the seed fixes the moment of
the cut, its kind and which writes survive, but not how far the writer got by then (the REORDER
rounds' writer stops at the same write every time, so their seed fixes the whole round).
"""
import argparse
import errno
import os
import random
import shutil
import sqlite3
import subprocess
import tempfile
import threading
import time

import powercut
from harness import HERE, PYTHON, CutFSMount, mounted_under, wait_for
from push_server import RECEIPT_TEXT, UPSTREAM_ACK, PushServer


def check(database):
    """(integrity_check's verdict, the ids in the table) after the reboot."""
    if not os.path.exists(database):
        return "no database file", set()
    db = sqlite3.connect(database, isolation_level=None)
    try:
        verdict = "; ".join(row[0] for row in db.execute("PRAGMA integrity_check"))
        try:
            ids = {row[0] for row in db.execute("SELECT id FROM acked")}
        except sqlite3.OperationalError:  # OFF: even the schema may be lost (no corruption)
            ids = set()
        return verdict, ids
    except sqlite3.DatabaseError as error:
        return f"error: {error}", set()
    finally:
        db.close()


KINDS = ("cut", "torn", "scatter")


def one_round(mode, seed, strict, workdir, rate):
    rng = random.Random(seed)
    kind, delay = KINDS[min(int(rng.random() * 3), 2)], rng.uniform(0.3, 1.5)
    root = tempfile.mkdtemp(prefix=f"{mode}-{seed}-", dir=workdir)
    backing, mountpoint = os.path.join(root, "backing"), os.path.join(root, "mnt")
    commands, acklog = os.path.join(root, "commands.sock"), os.path.join(root, "acked.log")
    database = os.path.join(mountpoint, "selftest.db")
    started = time.monotonic()
    with open(os.path.join(root, "log"), "ab") as log:
        with CutFSMount(backing, mountpoint, commands, strict, seed, log) as fs:
            writer = subprocess.Popen(
                [PYTHON, os.path.join(HERE, "selftest_writer.py"), database, acklog,
                 "--synchronous", mode, "--rate", str(rate)], stdout=log, stderr=log)
            try:
                wait_for("the writer's first acknowledgement", lambda: writer.poll() is None
                         and os.path.exists(acklog) and os.path.getsize(acklog) > 0, timeout=30)
                time.sleep(delay)  # no condition to wait for: the random moment is the point
                stats = fs.command("cut" if kind == "cut" else f"cut {kind}")
            finally:
                writer.kill()
                writer.wait()
        with CutFSMount(backing, mountpoint, commands, strict, seed, log):
            verdict, ids = check(database)
    with open(acklog) as file:
        acked = [int(line) for line in file if line.strip()]
    lost = [row for row in acked if row not in ids]
    return dict(seed=seed, kind=kind, delay=delay, acked=len(acked), lost=len(lost),
                first_lost=lost[0] if lost else None, verdict=verdict, stats=stats,
                seconds=time.monotonic() - started)


class Call(threading.Thread):
    """`function(*args)` on a thread of its own, which may block for good: the caller waits for
    it with join(timeout) and reads `done`, `result` and `error`."""

    def __init__(self, function, *args):
        super().__init__(daemon=True)
        self.function, self.args = function, args
        self.done, self.result, self.error = False, None, None
        self.start()

    def run(self):
        try:
            self.result = self.function(*self.args)
        except OSError as error:
            self.error = error
        self.done = True


def read_file(path):
    """A new open (FUSE asks cutfs; the page cache is dropped on open), then a read."""
    with open(path, "rb") as file:
        return file.read()


def held_count(fs):
    words = dict(word.split("=", 1) for word in fs.command("stats").split()[1:])
    return int(words["held"]), int(words["fsyncs_held"])


def hold_round(workdir):
    """The stalled disk; returns what went wrong (nothing: passed)."""
    root = tempfile.mkdtemp(prefix="hold-", dir=workdir)
    backing, mountpoint = os.path.join(root, "backing"), os.path.join(root, "mnt")
    data = b"held until release " * 1000
    problems = []
    with open(os.path.join(root, "log"), "ab") as log, \
            CutFSMount(backing, mountpoint, os.path.join(root, "commands.sock"), log=log) as fs:
        fd = os.open(os.path.join(mountpoint, "held.bin"), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
            fs.command("hold")
            syncing = Call(os.fsync, fd)
            wait_for("the fsync to be held", lambda: held_count(fs)[0] == 1, timeout=5)
            reading = Call(read_file, os.path.join(mountpoint, "held.bin"))
            reading.join(timeout=2)
            if not reading.done:
                problems.append("a read of the file did not answer within 2 s while its fsync was held")
            elif reading.result != data:
                problems.append(f"the read while held gave {len(reading.result or b'')} bytes, "
                                f"not the {len(data)} written ({reading.error})")
            time.sleep(0.3)  # a held fsync returning by mistake has had time to
            if syncing.done:
                problems.append(f"the fsync returned while held ({syncing.error or 'no error'})")
            if os.path.getsize(os.path.join(backing, "held.bin")) != 0:
                problems.append("the data reached the backing file while its fsync was held")
            fs.command("release")
            syncing.join(timeout=5)
            if not syncing.done or syncing.error:
                problems.append(f"the fsync did not return after release ({syncing.error or 'still waiting'})")
            with open(os.path.join(backing, "held.bin"), "rb") as file:
                if file.read() != data:
                    problems.append("after release, the backing file does not hold the data")

            os.write(fd, b"lost at the cut")
            fs.command("hold")
            cut_short = Call(os.fsync, fd)
            wait_for("the second fsync to be held", lambda: held_count(fs)[0] == 1, timeout=5)
            stats = fs.command("cut")
            cut_short.join(timeout=5)
            if not cut_short.done:
                problems.append("a cut left a held fsync waiting")
            elif getattr(cut_short.error, "errno", None) != errno.EIO:
                problems.append(f"the fsync held at the cut ended with {cut_short.error or 'success'}, not EIO")
            if " held=1 " not in stats or " fsyncs_held=2 " not in stats:
                problems.append(f"stats at the cut do not count the held fsyncs: {stats}")
        finally:
            fs.command("release")  # whatever happened, nothing may stay held: unmounting waits
            try:
                os.close(fd)
            except OSError:
                pass  # after the cut
    return problems


def names_round(workdir):
    """Renaming over and removing open files; returns what went wrong (nothing: passed)."""
    root = tempfile.mkdtemp(prefix="names-", dir=workdir)
    backing, mountpoint = os.path.join(root, "backing"), os.path.join(root, "mnt")
    problems = []
    with open(os.path.join(root, "log"), "ab") as log, \
            CutFSMount(backing, mountpoint, os.path.join(root, "commands.sock"), log=log):
        def put(name, data):
            with open(os.path.join(mountpoint, name), "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())

        put("state", b"old")
        put("state.new", b"new")
        put("gone", b"removed")
        with open(os.path.join(mountpoint, "state"), "rb") as reader, \
                open(os.path.join(mountpoint, "gone"), "rb") as removed:
            os.rename(os.path.join(mountpoint, "state.new"), os.path.join(mountpoint, "state"))
            os.unlink(os.path.join(mountpoint, "gone"))
            names = sorted(os.listdir(backing))
            if names != ["state"]:
                problems.append(f"the backing directory holds {names}, not just the renamed file")
            if read_file(os.path.join(backing, "state")) != b"new":
                problems.append("the renamed-over name does not hold the new file")
            if reader.read() != b"old":
                problems.append("the handle open on the renamed-over file no longer reads it")
            if removed.read() != b"removed":
                problems.append("the handle open on the removed file no longer reads it")
    return problems


def reorder_round(mode, kind, seed, workdir):
    """One REORDER round: reorder_writer.py at `mode`, cut (`kind`) where it stops."""
    cycles = random.Random(seed).randint(1, 4)
    root = tempfile.mkdtemp(prefix=f"reorder-{mode}-{kind}-{seed}-", dir=workdir)
    backing, mountpoint = os.path.join(root, "backing"), os.path.join(root, "mnt")
    commands, acklog = os.path.join(root, "commands.sock"), os.path.join(root, "acked.log")
    database = os.path.join(mountpoint, "reorder.db")
    problems = []
    with open(os.path.join(root, "log"), "ab") as log:
        with CutFSMount(backing, mountpoint, commands, False, seed, log) as fs:
            writer = subprocess.Popen(
                [PYTHON, os.path.join(HERE, "reorder_writer.py"), database, acklog,
                 "--synchronous", mode, "--cycles", str(cycles)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)
            try:
                said = writer.stdout.readline().strip()  # it stops there, or exits
                if said != b"unsynced":
                    problems.append(f"the writer exited {writer.wait()} before its last commit")
                stats = fs.command("cut" if kind == "cut" else f"cut {kind}")
            finally:
                writer.kill()
                writer.wait()
        with CutFSMount(backing, mountpoint, commands, False, seed, log):
            verdict, ids = check(database)
    with open(acklog) as file:
        acked = [int(line) for line in file if line.strip()]
    lost = [row for row in acked if row not in ids]
    return dict(mode=mode, kind=kind, seed=seed, cycles=cycles, acked=len(acked), lost=len(lost),
                verdict=verdict, stats=stats, problems=problems,
                failed=bool(lost) or verdict != "ok")


def reorder_check(rounds, seed, workdir):
    """REORDER; returns whether it came out as expected."""
    runs = [("OFF", "scatter", rounds, True), ("OFF", "cut", max(1, rounds // 3), False),
            ("NORMAL", "scatter", rounds, False)]
    ok = True
    for mode, kind, count, should_fail in runs:
        results = [reorder_round(mode, kind, seed + i, workdir) for i in range(count)]
        for r in results:
            print(f"  REORDER {mode:6} {kind:7} seed={r['seed']} cycles={r['cycles']}: acked={r['acked']} "
                  f"lost={r['lost']} integrity={r['verdict']!r}{' ' if r['problems'] else ''}"
                  f"{'; '.join(r['problems'])} | at cut: {r['stats']}", flush=True)
        failed = sum(r["failed"] for r in results)
        expected = (failed > 0 if should_fail else failed == 0) and not any(r["problems"] for r in results)
        ok = ok and expected
        print(f"REORDER {mode} {kind}: rounds={count} lost or not intact in {failed} "
              f"(lost {sum(r['lost'] for r in results)} of {sum(r['acked'] for r in results)} acknowledged) "
              f"-> {'as expected' if expected else 'NOT as expected'}", flush=True)
    return ok


def receipt_round(mode, seed, strict, workdir):
    """One RECEIPTS round: receipt_writer.py at `mode`, cut at a random moment, then powercut.py's
    receipt check on what the server received and what the reboot kept."""
    rng = random.Random(seed)
    kind, delay = KINDS[min(int(rng.random() * 3), 2)], rng.uniform(0.3, 1.5)
    root = tempfile.mkdtemp(prefix=f"receipts-{mode}-{seed}-", dir=workdir)
    backing, mountpoint = os.path.join(root, "backing"), os.path.join(root, "mnt")
    commands, database = os.path.join(root, "commands.sock"), os.path.join(mountpoint, "receipts.db")
    server = PushServer(0, manual=True)  # manual: it pushes nothing, it takes the receipts
    try:
        with open(os.path.join(root, "log"), "ab") as log:
            with CutFSMount(backing, mountpoint, commands, strict, seed, log) as fs:
                writer = subprocess.Popen(
                    [PYTHON, os.path.join(HERE, "receipt_writer.py"), database, str(server.port), RECEIPT_TEXT,
                     UPSTREAM_ACK, "--synchronous", mode], stdout=log, stderr=log)
                try:
                    wait_for("the first receipt at the server", lambda: writer.poll() is None
                             and server.receipts_received(), timeout=30)
                    time.sleep(delay)  # no condition to wait for: the random moment is the point
                    stats = fs.command("cut" if kind == "cut" else f"cut {kind}")
                finally:
                    writer.kill()
                    writer.wait()
            wait_for("the server to see the writer go", lambda: server.open_connections() == 0)
            receipts = server.receipts_received()
            with CutFSMount(backing, mountpoint, commands, strict, seed, log):
                verdict, _, _, read = powercut.inspect(database)
    finally:
        server.close()
    lost = powercut.receipts_for_lost_marks(receipts, read)
    return dict(mode=mode, seed=seed, kind=kind, delay=delay, receipts=len(receipts), read=len(read),
                lost=len(lost), first_lost=lost[:3], verdict=verdict, stats=stats)


def receipts_check(rounds, seed, strict, workdir):
    """RECEIPTS; returns whether it came out as expected."""
    ok = True
    for mode, should_fail in (("NORMAL", True), ("FULL", False)):
        results = [receipt_round(mode, seed + i, strict, workdir) for i in range(rounds)]
        for r in results:
            print(f"  RECEIPTS {mode:6} seed={r['seed']} {r['kind']:7} after {r['delay']:.2f}s: "
                  f"receipts={r['receipts']} read={r['read']} receipts_lost={r['lost']} "
                  f"first={r['first_lost']} integrity={r['verdict']!r} | at cut: {r['stats']}", flush=True)
        lost = sum(r["lost"] for r in results)
        intact = all(r["verdict"] == "ok" for r in results)
        expected = (lost > 0 if should_fail else lost == 0) and intact
        ok = ok and expected
        print(f"RECEIPTS {mode}: rounds={rounds} receipts={sum(r['receipts'] for r in results)} "
              f"naming a lost mark: {lost} (in {sum(r['lost'] > 0 for r in results)} rounds) "
              f"-> {'as expected' if expected else 'NOT as expected'}", flush=True)
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--modes", default="OFF,NORMAL,FULL")
    parser.add_argument("--strict", action="store_true",
                        help="cutfs --strict (names need fsyncdir)")
    parser.add_argument("--seed", type=int, default=1, help="round i uses seed+i")
    parser.add_argument("--rate", type=float, default=0, help="writer's commits/s at most")
    parser.add_argument("--keep", action="store_true", help="keep the rounds' directories")
    parser.add_argument("--hold-only", action="store_true", help="only the stalled disk's check")
    parser.add_argument("--reorder-rounds", type=int, default=10,
                        help="REORDER rounds of each kind that must fail or pass; 0: none")
    parser.add_argument("--receipt-rounds", type=int, default=2,
                        help="RECEIPTS rounds at NORMAL (must be caught) and at FULL; 0: none")
    args = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="cutfs-selftest-")
    passed = failed = 0
    try:
        problems = hold_round(workdir)
        passed, failed = passed + (not problems), failed + bool(problems)
        print("HOLD: fsync held until release, reads meanwhile, EIO at a cut -> "
              + ("as expected" if not problems else "NOT as expected: " + "; ".join(problems)),
              flush=True)
        if not args.hold_only:
            problems = names_round(workdir)
            passed, failed = passed + (not problems), failed + bool(problems)
            print("NAMES: renaming over and removing open files, one step each -> "
                  + ("as expected" if not problems else "NOT as expected: " + "; ".join(problems)),
                  flush=True)
        if args.reorder_rounds and not args.hold_only:
            ok = reorder_check(args.reorder_rounds, args.seed, workdir)
            passed, failed = passed + ok, failed + (not ok)
        if args.receipt_rounds and not args.hold_only:
            ok = receipts_check(args.receipt_rounds, args.seed, args.strict, workdir)
            passed, failed = passed + ok, failed + (not ok)
        for mode in ([] if args.hold_only else args.modes.split(",")):
            rounds = [one_round(mode, args.seed + i, args.strict, workdir, args.rate)
                      for i in range(args.rounds)]
            for r in rounds:
                print(f"  {mode:6} seed={r['seed']} {r['kind']:7} "
                      f"after {r['delay']:.2f}s: acked={r['acked']} lost={r['lost']} "
                      f"first_lost={r['first_lost']} integrity={r['verdict']!r} "
                      f"{r['seconds']:.1f}s | at cut: {r['stats']}", flush=True)
            lost = sum(r["lost"] for r in rounds)
            intact = sum(r["verdict"] == "ok" for r in rounds)
            ok = (lost == 0 and intact == len(rounds)) if mode == "FULL" else lost > 0
            passed, failed = passed + ok, failed + (not ok)
            print(f"{mode}: rounds={len(rounds)} acknowledged={sum(r['acked'] for r in rounds)} "
                  f"lost={lost} (in {sum(r['lost'] > 0 for r in rounds)} rounds) "
                  f"integrity ok {intact}/{len(rounds)} "
                  f"s/round={sum(r['seconds'] for r in rounds) / len(rounds):.1f} "
                  f"-> {'as expected' if ok else 'NOT as expected'}", flush=True)
    finally:
        if args.keep or mounted_under(workdir):
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
