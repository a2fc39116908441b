#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A stand-in for the daemon under the power-cut test (selftest.py): it inserts rows into an
SQLite database in WAL mode, one per transaction, and after each COMMIT returns it appends the
row's id to an acknowledgement log, as a server would acknowledge a message to its sender once
it is stored. The log must live outside the cutfs mount (on a disk that is not cut), so it
records what the writer promised; after the cut, every id in it should be in the table.

    selftest_writer.py DATABASE ACKLOG --synchronous OFF|NORMAL|FULL [--rate N]

Runs until an error (the cut makes every operation fail with EIO) or until killed. Prints
`ready` on stdout once the schema is in place.
"""
import argparse
import os
import sqlite3
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("database")
    parser.add_argument("acklog")
    parser.add_argument("--synchronous", choices=["OFF", "NORMAL", "FULL"], required=True)
    parser.add_argument("--rate", type=float, default=0,
                        help="commits per second at most; 0: no limit")
    args = parser.parse_args()

    db = sqlite3.connect(args.database, isolation_level=None)  # transactions as written below
    mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if mode != "wal":
        sys.exit(f"journal_mode is {mode}, not wal")
    db.execute(f"PRAGMA synchronous={args.synchronous}")
    # No checkpoints: under NORMAL a checkpoint is the only sync of the WAL, and one landing just
    # before the cut would leave nothing to lose; without them every round can tell.
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("CREATE TABLE IF NOT EXISTS acked(id INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
    # O_APPEND and one write() per id: a SIGKILL cannot leave half an id, and the kernel keeps
    # what was written (the log's disk is not the one being cut).
    ack = os.open(args.acklog, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    print("ready", flush=True)

    pause = 1 / args.rate if args.rate else 0
    row = 0
    try:
        while True:
            row += 1
            db.execute("BEGIN IMMEDIATE")
            # Payloads of varied size: some rows spill into overflow pages, so a commit writes
            # one WAL frame or several.
            db.execute("INSERT INTO acked(id, payload) VALUES (?, randomblob(?))",
                       (row, 50 + (row * 7919) % 6000))
            db.execute("COMMIT")
            os.write(ack, b"%d\n" % row)
            if pause:
                time.sleep(pause)
    except sqlite3.Error as error:
        # The cut: the commit in flight failed, and nothing was acknowledged for it.
        print(f"writer stopped after {row - 1} commits: {error}", file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
