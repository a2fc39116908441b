# SPDX-License-Identifier: Apache-2.0
"""Strict mode's directory entries, for cutfs.py: a name created, removed or renamed is durable
only once its directory is fsynced (POSIX promises no more; on ext4 an fsync of a new file does
not make its name durable, which is why SQLite fsyncs the directory after creating a journal or
a WAL).

Namespace operations go to the backing store at once, so that the mount needs no second copy
of the tree. What makes a cut possible to undo:
- `snapshots`: for each directory changed since its last fsync, its entries (name -> inode;
  subdirectories apart) as they were then, taken just before the first change;
- the attic (ATTIC in the backing root, hidden from the mount): a hard link to every inode that
  loses a name (unlink, or the target of a rename), so that a cut can bring the name back. An
  fsync of the directory drops the snapshot and whatever the attic holds that no snapshot names.
On a cut, each changed directory is put back as its snapshot says: names that are not in it (or
name another inode) go, then the snapshot's names come back, linked from the attic or from
wherever the inode is now (renamed into a directory that was fsynced since). File data is kept
per inode (pending.py), so it follows the inode through all this.

Subdirectories are names too (mkdir, rmdir, rename): one made since its parent's last fsync goes
with all it holds (as on a disk where its entry never reached the parent), one renamed away is
moved back, one removed (so it was empty) comes back empty.

Not modelled: chmod, chown and times are durable at once; a cut is all or nothing for names (a
torn cut tears data only).
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
        self.snapshots = {}  # directory (backing path) -> ({name: inode}, {subdirectory: inode})

    def entries(self, directory):
        files, subdirectories = {}, {}
        for entry in os.scandir(directory):
            if entry.path != self.attic:
                kind = subdirectories if entry.is_dir(follow_symlinks=False) else files
                kind[entry.name] = entry.inode()
        return files, subdirectories

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
        needed = {inode for files, _ in self.snapshots.values() for inode in files.values()}
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
        # Shallowest first: a directory is back before the names inside it are put back.
        changed = sorted(self.snapshots.items(), key=lambda item: item[0].count(os.sep))
        wanted = {inode for _, (_, subdirectories) in changed for inode in subdirectories.values()}
        for directory, (durable, durable_subdirectories) in changed:
            if not os.path.isdir(directory):
                continue  # gone with a directory removed above
            files, subdirectories = self.entries(directory)
            for name, inode in subdirectories.items():
                if durable_subdirectories.get(name) != inode:
                    path = os.path.join(directory, name)
                    if inode in wanted:  # renamed: kept aside, to be moved back below
                        os.rename(path, os.path.join(self.attic, f"dir-{inode}"))
                    else:
                        self.discard(path)
                    removed += 1
            for name, inode in files.items():
                if durable.get(name) != inode:
                    path = os.path.join(directory, name)
                    self.keep(path)
                    os.unlink(path)
                    removed += 1
        elsewhere = None
        for directory, (durable, durable_subdirectories) in changed:
            if not os.path.isdir(directory):
                continue
            for name, inode in durable_subdirectories.items():
                path = os.path.join(directory, name)
                if not os.path.lexists(path):
                    aside = os.path.join(self.attic, f"dir-{inode}")
                    os.rename(aside, path) if os.path.isdir(aside) else os.mkdir(path)
                    restored += 1
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

    def discard(self, tree):
        """A directory whose name was never durable goes, with all it holds; its files keep
        their inodes in the attic, in case one of them was moved there from a durable name."""
        for directory, _, names in os.walk(tree):
            for name in names:
                self.keep(os.path.join(directory, name))
        shutil.rmtree(tree)

    def inodes(self):
        found = {}
        for directory, _, names in os.walk(self.root):
            for name in names:
                path = os.path.join(directory, name)
                found.setdefault(os.lstat(path).st_ino, path)
        return found
