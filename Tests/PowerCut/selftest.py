#!/usr/bin/python3
"""The self-test of cutfs.py: does a power cut through it lose what it should, and only that?

For each synchronous mode (OFF, NORMAL, FULL) it runs seeded rounds: mount cutfs on a fresh
backing directory, start selftest_writer.py on it (WAL mode, one row per transaction, each
acknowledged in a log outside the mount once COMMIT returns), cut the power after a random
0.3-1.5 s (a torn cut in about half the rounds), SIGKILL the writer, unmount, mount the same
backing again (the reboot), and check the database: PRAGMA integrity_check, and how many
acknowledged ids are missing.

What should come out: with FULL every commit is fsynced before COMMIT returns, so nothing
acknowledged is lost and the database is intact. With NORMAL, WAL commits are not fsynced (only
checkpoints sync the WAL), so acknowledged rows are lost; with OFF nothing is ever synced. A mode
passes when FULL lost nothing and every database is intact, and when NORMAL and OFF lost
something (else the cut bit nothing, and the tool is broken). Prints `N passed, N failed`.

    selftest.py [--rounds 5] [--modes OFF,NORMAL,FULL] [--strict] [--seed 1] [--keep]

A round is replayed with its seed (`--seed S --rounds 1 --modes M`): the seed fixes the moment of
the cut, whether it is torn and which pages tear, but not how far the writer got by then.
"""
import argparse
import os
import random
import shutil
import sqlite3
import subprocess
import tempfile
import time

from harness import HERE, PYTHON, CutFSMount, mounted_under, wait_for


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


def one_round(mode, seed, strict, workdir, rate):
    rng = random.Random(seed)
    torn, delay = rng.random() < 0.5, rng.uniform(0.3, 1.5)
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
                stats = fs.command("cut torn" if torn else "cut")
            finally:
                writer.kill()
                writer.wait()
        with CutFSMount(backing, mountpoint, commands, strict, seed, log):
            verdict, ids = check(database)
    with open(acklog) as file:
        acked = [int(line) for line in file if line.strip()]
    lost = [row for row in acked if row not in ids]
    return dict(seed=seed, torn=torn, delay=delay, acked=len(acked), lost=len(lost),
                first_lost=lost[0] if lost else None, verdict=verdict, stats=stats,
                seconds=time.monotonic() - started)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--modes", default="OFF,NORMAL,FULL")
    parser.add_argument("--strict", action="store_true",
                        help="cutfs --strict (names need fsyncdir)")
    parser.add_argument("--seed", type=int, default=1, help="round i uses seed+i")
    parser.add_argument("--rate", type=float, default=0, help="writer's commits/s at most")
    parser.add_argument("--keep", action="store_true", help="keep the rounds' directories")
    args = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="cutfs-selftest-")
    passed = failed = 0
    try:
        for mode in args.modes.split(","):
            rounds = [one_round(mode, args.seed + i, args.strict, workdir, args.rate)
                      for i in range(args.rounds)]
            for r in rounds:
                print(f"  {mode:6} seed={r['seed']} {'torn' if r['torn'] else 'cut '} "
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
