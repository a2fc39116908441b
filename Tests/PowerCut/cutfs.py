#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""cutfs: a FUSE file system that simulates power cuts, in the spirit of Jepsen's LazyFS, for
the power-cut test of a program that keeps its state in SQLite.

    cutfs.py mount BACKING MOUNTPOINT --commands SOCKET [--strict] [--seed N]

What it models: a machine whose page cache is lost when the power goes. The mount is a
passthrough of the BACKING directory, whose content is what a disk would hold: durable. Every
write, truncate and extension of a file is kept in memory only (pending.py), and reads and sizes
see it (read-your-writes), until an fsync or fdatasync of that file writes it to BACKING. A
`cut` on the command socket drops all that is pending (or, with `cut torn`, first writes a random
page subset of it: torn and reordered writes; with `cut scatter`, replays every write since the
last fsync of each file, each surviving or not independently and torn at sector size, so that an
earlier version of a page may reach the disk while a later one is lost: pending.py), and from
then on every operation fails with EIO: the machine is off, so the writer cannot slip in another
write before the harness kills it. The harness then unmounts (fusermount3 -u -z) and mounts
BACKING again: the reboot.

A cut can also be armed to land where a writer is weakest: `arm scatter R W` cuts (scatter) at
the W-th write into a write-ahead log (a file named *-wal) after the R-th time from now that the
log starts over, i.e. that its 32-byte header is written again at offset 0 of a file that is not
empty (SQLite's WAL restart); that write fails with EIO. `stats` counts the restarts seen
(`wal_restarts`) and says whether an armed cut waits (`armed`); `last-cut` gives the stats just
before the last cut, however it came.

Names: by default creating, removing and renaming entries (files, directories, sockets, FIFOs)
is durable at once. Removing or renaming over a file still open is one step, as on a disk
(`hard_remove`): libfuse would otherwise first rename the open file to `.fuse_hidden…`, and a cut
between that and the rename itself would leave neither the old file nor the new one under the
name. The open file is then reached by its handle alone (`flag_nullpath_ok`: no path), so that
reads, writes, fsync and close go on; fstat fails with ENOENT (libfuse 2 asks it by the name).
With --strict a name is durable only once its directory is fsynced (strictns.py), as POSIX
allows and ext4 does: a directory made and never fsynced into its parent is lost in a cut with
all it holds.

A stalled disk: after `hold` on the command socket every fsync and fdatasync of a file (one
FUSE operation, `fsync`) waits until `release`, as on a disk that stops answering while reads
are still served from the cache; nothing else changes. The held fsyncs wait outside the lock
that serialises the operations, so that reads, writes and opens by other threads and processes
go on meanwhile (the kernel keeps the file's inode locked during its fsync, so writes to that
one file wait there, as they would on a real disk). A `cut` releases them, and they fail with
EIO: the power is off. A held fsync is never answered otherwise, and its caller cannot be killed
while it waits (the kernel waits out a FUSE request already sent): release or cut before
killing it.

Command socket (command_socket.py; unix stream, one line each way): `ping`, `stats`, `cut`, `cut torn`,
`cut scatter` (whose reply gives the stats just before the cut: what it dropped or tore), `arm
scatter R W`, `last-cut`, `sync` (everything pending made durable, as a clean shutdown would),
`hold`, `release`. `stats` counts the fsyncs
held so far (`fsyncs_held`) and says how many wait now (`held`). A clean unmount without a cut
syncs too.

Mounted without direct_io, so that the kernel page cache backs shared writable mmap (SQLite
maps its WAL index, the -shm file, with MAP_SHARED), and without writeback caching (libfuse 2
has none), so that every write() reaches this process at once and a cut catches all of them.
Bytes stored through a shared mapping reach it only when the kernel writes the pages back, so a
cut loses most of them: right for -shm, which SQLite rebuilds from the WAL on recovery.
POSIX and flock locks stay in the kernel (no `lock` operation): one machine, so that is right.
Multithreaded FUSE loop (a held fsync must not stop the others), but one lock serialises every
operation and the commands, as in a single-threaded loop. Needs Debian's
python3-fusepy (module `fusepy`) and /usr/bin/python3; run as root.
"""
import argparse
import errno
import os
import random
import stat
import threading

import command_socket
from fusepy import FUSE, FuseOSError
from pending import PendingFile
from strictns import ATTIC, DurableNamespace


class CutFS:
    use_ns = True  # fusepy: times in nanoseconds
    flag_nullpath_ok = True  # a removed file still open: its operations come with no path

    def __init__(self, root, strict, seed):
        self.root = os.path.abspath(root)
        self.ns = DurableNamespace(self.root) if strict else None
        self.rng = random.Random(seed)
        self.mutex = threading.Lock()  # not `lock`: fusepy would take that for the FUSE op
        self.off = False
        self.files = {}    # backing inode -> PendingFile, while open or dirty
        self.handles = {}  # FUSE file handle -> PendingFile
        self.next_handle = 1
        self.counts = {"writes": 0, "fsyncs": 0, "fsyncdirs": 0, "fsyncs_held": 0, "wal_restarts": 0}
        self.armed = None  # [restarts still to see, writes into the log after the last of them]
        self.at_cut = "none"  # the stats just before the last cut
        # The stalled disk: its own lock, never held while waiting for `mutex`, so that a held
        # fsync leaves the operations free and `release` or `cut` can always reach it.
        self.stall = threading.Condition(threading.Lock())
        self.holding = False
        self.held = 0  # fsyncs waiting now

    # --- plumbing ---------------------------------------------------------------------------

    def __call__(self, op, path, *args):
        if op == "fsync":
            self.wait_while_held()
        with self.mutex:
            if self.off and op != "destroy":
                raise FuseOSError(errno.EIO)
            return getattr(self, op)(path, *args)

    def wait_while_held(self):
        """A held fsync waits here, outside `mutex`, until `release` or `cut` (off: EIO next)."""
        with self.stall:
            if not self.holding or self.off:
                return
            self.held += 1
            self.counts["fsyncs_held"] += 1
            try:
                self.stall.wait_for(lambda: not self.holding or self.off)
            finally:
                self.held -= 1

    def hold(self, holding):
        with self.stall:
            self.holding = holding
            self.stall.notify_all()

    def real(self, path):
        if path == "/" + ATTIC or path.startswith("/" + ATTIC + "/"):
            raise FuseOSError(errno.ENOENT)
        return self.root + path.rstrip("/")

    def file(self, real):
        """The PendingFile of the regular file at `real`, made if need be."""
        st = os.lstat(real)
        if not stat.S_ISREG(st.st_mode):
            raise FuseOSError(errno.EISDIR if stat.S_ISDIR(st.st_mode) else errno.EPERM)
        pending = self.files.get(st.st_ino)
        if pending is None:
            pending = self.files[st.st_ino] = PendingFile(os.open(real, os.O_RDWR))
        return pending

    def forget(self, inode):
        """Drop a file nobody has open and that is clean, or gone (its pending data goes too)."""
        pending = self.files.get(inode)
        if pending is not None and pending.opens == 0:
            os.close(pending.fd)
            del self.files[inode]

    def gone(self, real):
        """Call before `real` loses its name: the inode it names, if this was its last name."""
        try:
            st = os.lstat(real)
        except FileNotFoundError:
            return None
        return st.st_ino if st.st_nlink == 1 else None

    # --- files ------------------------------------------------------------------------------

    def getattr(self, path, fh=None):
        st = os.fstat(self.handles[fh].fd) if path is None else os.lstat(self.real(path))
        attrs = {key: getattr(st, key) for key in (
            "st_mode", "st_nlink", "st_uid", "st_gid", "st_size", "st_ino", "st_blocks")}
        attrs.update(st_atime=st.st_atime_ns, st_mtime=st.st_mtime_ns, st_ctime=st.st_ctime_ns)
        pending = self.files.get(st.st_ino)
        if pending is not None and stat.S_ISREG(st.st_mode):
            attrs["st_size"] = pending.size
        return attrs

    def open(self, path, flags):
        pending = self.file(self.real(path))
        if flags & os.O_TRUNC:
            pending.truncate(0)
        pending.opens += 1
        handle, self.next_handle = self.next_handle, self.next_handle + 1
        self.handles[handle] = pending
        return handle

    def create(self, path, mode, fi=None):
        real = self.real(path)
        if self.ns:
            self.ns.changing(real)
        os.close(os.open(real, os.O_WRONLY | os.O_CREAT, mode))
        return self.open(path, 0)

    def read(self, path, size, offset, fh):
        return self.handles[fh].read(offset, size)

    def write(self, path, data, offset, fh):
        pending = self.handles[fh]
        log = path is not None and path.endswith("-wal")
        restarted = log and offset == 0 and len(data) == 32 and pending.size > 0
        pending.write(offset, data)
        self.counts["writes"] += 1
        self.counts["wal_restarts"] += restarted
        if log and self.armed is not None and self.armed_write_due(restarted):
            self.at_cut = self.stats()
            self.cut("scatter")
            raise FuseOSError(errno.EIO)  # the power went during this write
        return len(data)

    def armed_write_due(self, restarted):
        """Whether this write into a log is the one an `arm` waits for."""
        if self.armed[0] > 0:
            self.armed[0] -= restarted
            return False
        self.armed[1] -= 1
        return self.armed[1] <= 0

    def truncate(self, path, length, fh=None):
        pending = self.handles[fh] if fh is not None else self.file(self.real(path))
        pending.truncate(length)

    def fsync(self, path, datasync, fh):
        pending = self.handles[fh] if fh is not None else self.file(self.real(path))
        pending.sync()
        self.counts["fsyncs"] += 1

    def release(self, path, fh):
        pending = self.handles.pop(fh)
        pending.opens -= 1
        if not pending.dirty:
            self.forget(pending.inode)

    # --- names ------------------------------------------------------------------------------

    def unlink(self, path):
        real = self.real(path)
        inode = self.gone(real)
        if self.ns:
            self.ns.changing(real)
            self.ns.keep(real)
        os.unlink(real)
        if inode is not None:
            self.forget(inode)

    def rename(self, old, new):
        old_real, new_real = self.real(old), self.real(new)
        replaced = self.gone(new_real)
        if self.ns:
            self.ns.changing(old_real)
            self.ns.changing(new_real)
            if os.path.lexists(new_real):
                self.ns.keep(new_real)
        os.rename(old_real, new_real)
        if replaced is not None:
            self.forget(replaced)

    def link(self, target, source):
        real = self.real(target)
        if self.ns:
            self.ns.changing(real)
        os.link(self.real(source), real)

    def fsyncdir(self, path, datasync, fh):
        if self.ns:
            self.ns.synced(self.real(path))
        self.counts["fsyncdirs"] += 1

    def readdir(self, path, fh):
        names = os.listdir(self.real(path))
        return [".", ".."] + [name for name in names if path != "/" or name != ATTIC]

    def symlink(self, target, source):
        raise FuseOSError(errno.EPERM)  # SQLite makes none; strict mode would have to model them

    def mknod(self, path, mode, dev):
        """Sockets (bind() of a Unix socket) and FIFOs; no devices. A name like a file's."""
        if not (stat.S_ISSOCK(mode) or stat.S_ISFIFO(mode)):
            raise FuseOSError(errno.EPERM)
        real = self.real(path)
        if self.ns:
            self.ns.changing(real)
        os.mknod(real, mode)

    def mkdir(self, path, mode):
        real = self.real(path)
        if self.ns:
            self.ns.changing(real)
        os.mkdir(real, mode)

    def rmdir(self, path):
        real = self.real(path)
        if self.ns:
            self.ns.changing(real)
        os.rmdir(real)

    def chmod(self, path, mode):
        os.chmod(self.real(path), mode)

    def chown(self, path, uid, gid):
        os.chown(self.real(path), uid, gid, follow_symlinks=False)

    def utimens(self, path, times=None):
        os.utime(self.real(path), ns=times, follow_symlinks=False)

    def statfs(self, path):
        sv = os.statvfs(self.real(path))
        return {key: getattr(sv, key) for key in (
            "f_bsize", "f_frsize", "f_blocks", "f_bfree", "f_bavail", "f_files", "f_ffree",
            "f_favail", "f_flag", "f_namemax")}

    # --- the power --------------------------------------------------------------------------

    def cut(self, kind=None):
        """The power goes: what is pending is dropped, or first torn (`torn`) or scattered."""
        if not self.off:
            self.armed = None
            for pending in self.files.values():
                if kind == "torn":
                    pending.tear(self.rng)
                elif kind == "scatter":
                    # How much of what was pending reaches the disk, from 1 % to all of it:
                    # orderings that need most of it lost are as likely as those needing most kept.
                    pending.scatter(self.rng, 10 ** self.rng.uniform(-2, 0))
            if self.ns:
                self.ns.restore()
            self.close_all()
            self.off = True
            with self.stall:  # the held fsyncs go on, to find the power off
                self.stall.notify_all()

    def sync(self):
        for pending in self.files.values():
            pending.sync()
        if self.ns:
            self.ns.sync_all()

    def destroy(self, path):
        """A clean unmount (or the exit after a cut, which must write nothing)."""
        if not self.off:
            self.sync()
            self.close_all()

    def close_all(self):
        for pending in self.files.values():
            os.close(pending.fd)
        self.files.clear()
        self.handles.clear()

    def stats(self):
        dirty = [pending for pending in self.files.values() if pending.dirty]
        with self.stall:
            held = self.held
        figures = dict(self.counts, pending_files=len(dirty),
                       pending_bytes=sum(pending.pending_bytes for pending in dirty),
                       tracked_files=len(self.files), held=held, off=int(self.off),
                       armed=int(self.armed is not None))
        return " ".join(f"{key}={value}" for key, value in figures.items())

    def command(self, line):
        with self.mutex:
            words = line.split()
            if words == ["ping"]:
                return "pong"
            if words == ["stats"]:
                return "ok " + self.stats()
            if words in (["cut"], ["cut", "torn"], ["cut", "scatter"]):
                before = self.stats()  # what the cut drops (or tears)
                if not self.off:
                    self.at_cut = before
                self.cut(words[1] if len(words) == 2 else None)
                return "ok " + before
            if len(words) == 4 and words[:2] == ["arm", "scatter"] and all(w.isdigit() for w in words[2:]) \
                    and int(words[3]) > 0 and not self.off:
                self.armed = [int(words[2]), int(words[3])]
                return "ok"
            if words == ["last-cut"]:
                return "ok " + self.at_cut
            if words == ["sync"] and not self.off:
                self.sync()
                return "ok"
            if words in (["hold"], ["release"]):
                self.hold(words == ["hold"])
                return "ok"
            return "error unknown or refused command: " + line


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["mount"])
    parser.add_argument("backing")
    parser.add_argument("mountpoint")
    parser.add_argument("--commands", required=True,
                        help="unix socket for cut, arm, last-cut, stats, ping, sync, hold, release")
    parser.add_argument("--strict", action="store_true", help="names durable on fsyncdir only")
    parser.add_argument("--seed", type=int, default=0, help="for the torn writes of `cut torn` and `cut scatter`")
    args = parser.parse_args()
    fs = CutFS(args.backing, args.strict, args.seed)
    command_socket.serve(args.commands, fs.command)
    # Threads: a held fsync occupies one, and the other operations need others to answer.
    FUSE(fs, args.mountpoint, foreground=True, nothreads=False, allow_other=True, use_ino=True,
         big_writes=True, hard_remove=True, fsname="cutfs", subtype="cutfs")


if __name__ == "__main__":
    main()
