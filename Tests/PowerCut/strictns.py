"""Strict mode's directory entries, for cutfs.py: a name created, removed or renamed is durable
only once its directory is fsynced (POSIX promises no more; on ext4 an fsync of a new file does
not make its name durable, which is why SQLite fsyncs the directory after creating a journal or
a WAL).

Namespace operations go to the backing store at once, so that the mount needs no second copy
of the tree. What makes a cut possible to undo:
- `snapshots`: for each directory changed since its last fsync, its non-directory entries
  (name -> inode) as they were then, taken just before the first change;
- the attic (ATTIC in the backing root, hidden from the mount): a hard link to every inode that
  loses a name (unlink, or the target of a rename), so that a cut can bring the name back. An
  fsync of the directory drops the snapshot and whatever the attic holds that no snapshot names.
On a cut, each changed directory is put back as its snapshot says: names that are not in it (or
name another inode) go, then the snapshot's names come back, linked from the attic or from
wherever the inode is now (renamed into a directory that was fsynced since). File data is kept
per inode (pending.py), so it follows the inode through all this.

Not modelled: directories themselves (mkdir, rmdir) are durable at once; so are chmod, chown
and times; a cut is all or nothing for names (a torn cut tears data only).
"""
import os
import shutil
import stat

ATTIC = ".cutfs-attic"


class DurableNamespace:
    def __init__(self, root):
        self.root = root
        self.attic = os.path.join(root, ATTIC)
        # A leftover attic belongs to a run that ended without a cut: its removals stand.
        shutil.rmtree(self.attic, ignore_errors=True)
        os.mkdir(self.attic)
        self.snapshots = {}  # directory (backing path) -> {name: inode}

    def entries(self, directory):
        found = {}
        for entry in os.scandir(directory):
            if not entry.is_dir(follow_symlinks=False) and entry.path != self.attic:
                found[entry.name] = entry.inode()
        return found

    def changing(self, path):
        """Call before an operation adds, removes or replaces the name `path`."""
        directory = os.path.dirname(path)
        if directory not in self.snapshots:
            self.snapshots[directory] = self.entries(directory)

    def keep(self, path):
        """Call before `path` loses its name: the attic keeps its inode."""
        st = os.lstat(path)
        if stat.S_ISDIR(st.st_mode):
            return
        kept = os.path.join(self.attic, str(st.st_ino))
        if not os.path.lexists(kept):
            os.link(path, kept, follow_symlinks=False)

    def synced(self, directory):
        """fsyncdir: the directory's entries as they are now are durable."""
        if self.snapshots.pop(directory, None) is None:
            return
        needed = {inode for names in self.snapshots.values() for inode in names.values()}
        for name in os.listdir(self.attic):
            if int(name) not in needed:
                os.unlink(os.path.join(self.attic, name))

    def sync_all(self):
        """A clean unmount: every entry is durable."""
        self.snapshots.clear()
        shutil.rmtree(self.attic, ignore_errors=True)

    def restore(self):
        """The power cut: every changed directory goes back to its last durable entries.
        Returns how many names were removed and brought back."""
        removed = restored = 0
        for directory, durable in self.snapshots.items():
            if not os.path.isdir(directory):
                continue  # removed since (rmdir is durable at once)
            for name, inode in self.entries(directory).items():
                if durable.get(name) != inode:
                    path = os.path.join(directory, name)
                    self.keep(path)
                    os.unlink(path)
                    removed += 1
        elsewhere = None
        for directory, durable in self.snapshots.items():
            if not os.path.isdir(directory):
                continue
            for name, inode in durable.items():
                path = os.path.join(directory, name)
                if os.path.lexists(path):
                    continue
                source = os.path.join(self.attic, str(inode))
                if not os.path.lexists(source):
                    if elsewhere is None:
                        elsewhere = self.inodes()
                    source = elsewhere.get(inode)
                if source:
                    os.link(source, path, follow_symlinks=False)
                    restored += 1
        self.sync_all()
        return removed, restored

    def inodes(self):
        found = {}
        for directory, _, names in os.walk(self.root):
            for name in names:
                path = os.path.join(directory, name)
                found.setdefault(os.lstat(path).st_ino, path)
        return found
