#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A stand-in for the daemon's burst path, for cutfs's self-test (selftest.py, REORDER): it
commits with SQLite's sync left out (`--synchronous OFF` or `NORMAL`), makes each commit durable
itself by fdatasync of the write-ahead log, and only then acknowledges its rows in a log outside
the mount; a second connection at synchronous=FULL copies the log back (a checkpoint), so that
the next commit starts the log over, as the daemon's checkpointer makes it do.

    reorder_writer.py DATABASE ACKLOG --synchronous OFF|NORMAL [--cycles N]

Each cycle commits one small row (which starts the log over, after the first cycle), then 200
larger ones, then checkpoints. After `--cycles` of them it commits 200 more rows, which start the
log over, and stops before its own sync: it prints `unsynced` and waits to be killed. That is
where the power goes in the self-test. SQLite at NORMAL has synced the log's new header by then;
at OFF it has not, and on a disk that writes out of order the old header may stay with the old
log's first transaction behind it, while the new rows overwrote the rest: recovery then replays
that old transaction over newer pages (SQLite's ticket ff5be73dee).
"""
import argparse
import os
import sqlite3
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("database")
    parser.add_argument("acklog")
    parser.add_argument("--synchronous", choices=["OFF", "NORMAL"], required=True)
    parser.add_argument("--cycles", type=int, default=2)
    args = parser.parse_args()

    db = sqlite3.connect(args.database, isolation_level=None)
    if db.execute("PRAGMA journal_mode=WAL").fetchone()[0] != "wal":
        sys.exit("not in WAL mode")
    db.execute(f"PRAGMA synchronous={args.synchronous}")
    db.execute("PRAGMA wal_autocheckpoint=0")  # the checkpoints are the second connection's
    db.execute("CREATE TABLE IF NOT EXISTS acked(id INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
    copier = sqlite3.connect(args.database, isolation_level=None)
    copier.execute("PRAGMA synchronous=FULL")
    log = os.open(args.database + "-wal", os.O_RDONLY)
    os.fdatasync(log)
    ack = os.open(args.acklog, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    row = 0

    def commit(count, size, sync=True):
        nonlocal row
        first = row + 1
        db.execute("BEGIN IMMEDIATE")
        for _ in range(count):
            row += 1
            db.execute("INSERT INTO acked(id, payload) VALUES (?, randomblob(?))", (row, size))
        db.execute("COMMIT")
        if sync:
            os.fdatasync(log)
            os.write(ack, "".join(f"{n}\n" for n in range(first, row + 1)).encode())

    try:
        for _ in range(args.cycles):
            commit(1, 20)
            commit(200, 300)
            busy, frames, copied = copier.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            if busy or frames != copied:
                sys.exit(f"the checkpoint copied {copied} of {frames} frames")
        commit(200, 300, sync=False)
        print("unsynced", flush=True)
        sys.stdin.read()  # until killed
    except (sqlite3.Error, OSError) as error:
        print(f"writer stopped after row {row}: {error}", file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
