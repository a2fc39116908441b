# SPDX-License-Identifier: Apache-2.0
"""One file's writes that are not yet durable, for cutfs.py.

The durable content of a file is its backing file. What a program sees through the mount is
that content with the pending changes laid over it:
- `extents`: the bytes written since the last fsync, merged into non-overlapping, non-touching
  runs (a later write wins where it overlaps an earlier one), sorted by offset;
- `valid`: backing bytes at or past this offset no longer count (a truncate since the last fsync
  cut them off; bytes there read as zeros unless an extent covers them);
- `size`: the size seen through the mount.
- `log`: every write and truncate since the last fsync, in the order made.
fsync writes all of it to the backing file and os.fsync's it. A power cut drops it, or with
`torn` first writes a random subset of it, page by page (a kernel writes back dirty pages in no
promised order, and a cut can land between any two of them), or with `scatter` replays the log
with each write surviving or not independently, torn at sector size: a disk with a volatile
cache writes what it holds in any order, and an earlier version of a page may reach it while a
later one does not. Merged extents cannot show that: only `log` can.
"""
import bisect
import os

PAGE = 4096
SECTOR = 512
TORN = 0.25  # of the writes that survive a scatter, the share torn at sector boundaries


class PendingFile:
    def __init__(self, fd):
        self.fd = fd      # the backing file, opened O_RDWR and never O_APPEND (pwrite must place)
        self.inode = os.fstat(fd).st_ino
        self.opens = 0    # open handles through the mount
        self.reset()

    def reset(self):
        self.durable = os.fstat(self.fd).st_size
        self.size = self.valid = self.durable
        self.starts = []  # sorted extent offsets
        self.extents = {}  # offset -> bytearray
        self.log = []  # (offset, bytes) per write, (length, None) per truncate, in order

    @property
    def dirty(self):
        return bool(self.starts) or self.size != self.durable or self.valid != self.durable

    @property
    def pending_bytes(self):
        return sum(len(data) for data in self.extents.values())

    def write(self, offset, data):
        self.log.append((offset, bytes(data)))
        end = offset + len(data)
        starts, extents = self.starts, self.extents
        first = bisect.bisect_right(starts, offset) - 1
        if first < 0 or starts[first] + len(extents[starts[first]]) < offset:
            first += 1  # the extent before does not reach this write
        last = first
        while last < len(starts) and starts[last] <= end:
            last += 1
        touched = starts[first:last]
        if not touched:
            bisect.insort(starts, offset)
            extents[offset] = bytearray(data)
        elif len(touched) == 1 and touched[0] <= offset:
            # The common cases, appending to a run or overwriting inside one: change it in place.
            start = touched[0]
            extents[start][offset - start:end - start] = data
        else:
            start = min(touched[0], offset)
            stop = max(end, touched[-1] + len(extents[touched[-1]]))
            merged = bytearray(stop - start)
            for run in touched:
                old = extents.pop(run)
                merged[run - start:run - start + len(old)] = old
            merged[offset - start:end - start] = data
            starts[first:last] = [start]
            extents[start] = merged
        self.size = max(self.size, end)

    def truncate(self, length):
        self.log.append((length, None))
        if length < self.size:
            while self.starts and self.starts[-1] >= length:
                del self.extents[self.starts.pop()]
            if self.starts:
                last = self.starts[-1]
                del self.extents[last][length - last:]
            self.valid = min(self.valid, length)
        self.size = length

    def read(self, offset, count):
        end = min(offset + count, self.size)
        if offset >= end:
            return b""
        if not self.starts and end <= self.valid:
            return os.pread(self.fd, end - offset, offset)
        out = bytearray(end - offset)
        if offset < self.valid:
            base = os.pread(self.fd, min(end, self.valid) - offset, offset)
            out[:len(base)] = base
        index = max(bisect.bisect_right(self.starts, offset) - 1, 0)
        for start in self.starts[index:]:
            if start >= end:
                break
            data = self.extents[start]
            low, high = max(start, offset), min(start + len(data), end)
            if low < high:
                out[low - offset:high - offset] = data[low - start:high - start]
        return bytes(out)

    def sync(self):
        """fsync: everything pending reaches the backing file, then the backing disk."""
        if self.dirty:
            if self.valid < self.durable:
                os.ftruncate(self.fd, self.valid)
            for start in self.starts:
                os.pwrite(self.fd, self.extents[start], start)
            os.ftruncate(self.fd, self.size)  # an extending truncate leaves no extent behind
        os.fsync(self.fd)
        self.reset()

    def tear(self, rng):
        """A cut with torn writes: a random subset of the pending pages reaches the backing file
        (and the pending truncate, or not). Whatever else was pending is lost."""
        if self.valid < self.durable and rng.random() < 0.5:
            os.ftruncate(self.fd, self.valid)
        pieces = []
        for start in self.starts:
            data, at = self.extents[start], start
            while at < start + len(data):
                stop = min((at // PAGE + 1) * PAGE, start + len(data))
                pieces.append((at, data[at - start:stop - start]))
                at = stop
        rng.shuffle(pieces)
        for at, piece in pieces[:rng.randint(0, len(pieces))]:
            os.pwrite(self.fd, piece, at)

    def scatter(self, rng, survival):
        """A cut on a disk that reorders: each write since the last fsync reaches the backing
        file with probability `survival`, independently of the others; a quarter of those that
        do are torn, keeping each of their sectors (512-byte pieces, aligned) or not. Truncates
        survive alike. What survives is applied in the order it was made, so where two
        surviving writes overlap the later wins; where the later is lost the earlier shows."""
        for offset, data in self.log:
            if rng.random() >= survival:
                continue
            if data is None:
                os.ftruncate(self.fd, offset)
            elif len(data) > SECTOR and rng.random() < TORN:
                at, end = offset, offset + len(data)
                while at < end:
                    stop = min((at // SECTOR + 1) * SECTOR, end)
                    if rng.random() < 0.5:
                        os.pwrite(self.fd, data[at - offset:stop - offset], at)
                    at = stop
            else:
                os.pwrite(self.fd, data, offset)
