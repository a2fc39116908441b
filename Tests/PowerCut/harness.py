# SPDX-License-Identifier: Apache-2.0
"""Driving cutfs.py from a test: mount it, send it commands, unmount it. Shared by
selftest.py and the power-cut test of the daemon.

    with CutFSMount(backing, mountpoint, commands, strict=False, seed=1) as fs:
        ... start the writer on `mountpoint` ...
        fs.command("cut")   # the power goes; then SIGKILL the writer, still in the block
    # leaving the block unmounts (fusermount3 -u -z) and waits for cutfs to exit (it exits
    # once nothing has the mount open); mounting the same backing again is the reboot
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "support"))
from intrapush_test_support import wait_for  # noqa: E402

import command_socket  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"  # Debian's, which has python3-fusepy


class CutFSMount:
    def __init__(self, backing, mountpoint, command_socket_path, strict=False, seed=0, log=None):
        self.backing, self.mountpoint, self.socket = backing, mountpoint, command_socket_path
        self.strict, self.seed, self.log = strict, seed, log
        self.process = None

    def __enter__(self):
        os.makedirs(self.backing, exist_ok=True)
        os.makedirs(self.mountpoint, exist_ok=True)
        argv = [PYTHON, os.path.join(HERE, "cutfs.py"), "mount", self.backing, self.mountpoint,
                "--commands", self.socket, "--seed", str(self.seed)]
        if self.strict:
            argv.append("--strict")
        self.process = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT)
        try:
            wait_for("the cutfs mount", lambda: self.alive() and os.path.ismount(self.mountpoint))
            wait_for("the cutfs command socket", lambda: self.alive() and self.responds())
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def alive(self):
        if self.process.poll() is not None:
            raise AssertionError(f"cutfs exited with {self.process.returncode}")
        return True

    def responds(self):
        try:
            return self.command("ping") == "pong"
        except OSError:
            return False

    def command(self, line, timeout=30):
        """One command (see cutfs.py); returns its one-line reply."""
        return command_socket.send(self.socket, line, timeout)

    def __exit__(self, *exc):
        # Lazy unmount: it succeeds even while a killed writer's files are still being closed.
        subprocess.run(["fusermount3", "-u", "-z", self.mountpoint], stderr=subprocess.DEVNULL)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if os.path.ismount(self.mountpoint):
            subprocess.run(["umount", "-l", self.mountpoint], stderr=subprocess.DEVNULL)
        return False


def mounted_under(workdir):
    """Whether a mount was left behind under `workdir` (never rmtree into one)."""
    with open("/proc/mounts") as mounts:
        return workdir in mounts.read()


def remove_round(workdir, number):
    """Removes round `number`'s directory, unless a mount was left behind in the work directory."""
    if not mounted_under(workdir):
        shutil.rmtree(os.path.join(workdir, f"r{number}"), ignore_errors=True)


def finish(workdir, failed, keep):
    """Keeps the work directory, saying where and which rounds failed, or removes it; the exit status."""
    if failed or keep or mounted_under(workdir):
        print(f"kept {workdir}" + (f" (failed rounds: {' '.join('r%d' % r['number'] for r in failed)})"
                                   if failed else ""))
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0
