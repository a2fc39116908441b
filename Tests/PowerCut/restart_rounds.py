# SPDX-License-Identifier: Apache-2.0
"""The traffic of powercut.py's restart rounds: bursts that start the write-ahead log over, and
a cut armed to land inside the batch that does.

SQLite starts the log over when a write begins with every frame copied back (checkpointed):
it writes a new header at the start of the file and its frames over the old ones. With the
checkpointer's threshold lowered (INTRAPUSH_TEST_CHECKPOINT_THRESHOLD), the copy catches up
whenever the traffic pauses; without the checkpointer (INTRAPUSH_TEST_NO_CHECKPOINTER) SQLite's
own, with the same threshold, copies inside the commits. So each cycle sends one push alone (a small transaction that
starts a log), then a burst of CHUNK (batches synced beside the push loop), waits for the disk
to go quiet, then a second burst, which starts the log over with a large batch written over
the small one: the shape of SQLite's ticket ff5be73dee. Before one of those second bursts cutfs
is armed (`arm scatter 1 W`): the power goes at the W-th write into the new log, while the
batch is written and not yet synced, and the writes since the last sync survive out of order.
A writer that left the new header unsynced (synchronous=OFF) can then have recovery replay the
old log's first transaction over newer pages; one at NORMAL cannot.
"""
import time

from harness import wait_for

CHUNK = 300
CYCLES = 6


def figures(fs):
    """cutfs's stats as a dict of ints."""
    return {key: int(value) for key, value in
            (word.split("=", 1) for word in fs.command("stats").split()[1:])}


def is_off(fs):
    return figures(fs)["off"] == 1


def quiet(fs, daemon, polls=3, interval=0.03, timeout=5):
    """Waits until no write or sync reaches cutfs for `polls` polls in a row (the checkpointer
    has caught up), the power is off, or the daemon is gone."""
    last, same = None, 0
    deadline = time.monotonic() + timeout
    while same < polls and time.monotonic() < deadline and daemon.poll() is None:
        now = figures(fs)
        if now["off"]:
            return
        key = (now["writes"], now["fsyncs"])
        same = same + 1 if key == last else 0
        last = key
        time.sleep(interval)  # the next poll: quiet is an absence, seen only over time


def spurt(server, fs, daemon, count):
    """Sends `count` pushes at once; waits until all are acknowledged, the power is off, or the
    daemon is gone (then sends nothing)."""
    if daemon.poll() is not None or is_off(fs):
        return
    ids = server.send(count)
    wait_for(f"{count} pushes acknowledged", lambda: daemon.poll() is not None or is_off(fs)
             or ids <= server.acked_ids(), timeout=30)


def drive(server, fs, daemon, rng):
    """The cycles, one of them armed. Returns where the armed cut came: "burst" (in the burst
    it was armed for, which started the log over), "later" (at a later restart: that burst did
    not start the log over), or "" (not at all: the caller cuts)."""
    # Past the small transaction's dozen writes, so that the old log's first one can be left whole.
    armed_cycle, writes = rng.randint(1, 3), rng.randint(12, 60)
    for cycle in range(1, CYCLES + 1):
        spurt(server, fs, daemon, 1)
        spurt(server, fs, daemon, CHUNK)
        quiet(fs, daemon)
        if cycle == armed_cycle and not is_off(fs):
            fs.command(f"arm scatter 1 {writes}")
        spurt(server, fs, daemon, CHUNK)
        if is_off(fs):
            return "burst" if cycle == armed_cycle else "later"
        quiet(fs, daemon)
        if daemon.poll() is not None:
            break
    return "later" if is_off(fs) else ""
