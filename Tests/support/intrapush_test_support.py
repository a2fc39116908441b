# SPDX-License-Identifier: Apache-2.0
"""What the Python tests share — the hostile peer (Tests/Hostile), the interop matrix
(Tests/Interop) and the desktop agent's test (Tests/Notifier): a free loopback port, waiting for
a condition, and starting and stopping the daemon. Standard library only: Debian's python3 (for
dbus) and the one on PATH both import it.
"""
import os
import socket
import subprocess
import time


def free_port():
    """A loopback TCP port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(what, condition, timeout=10.0, interval=0.01):
    """Polls `condition` until it is truthy and returns its value; raises AssertionError naming
    `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def daemon_environment(home, inherited=None):
    """The environment a test daemon runs with: none of the caller's INTRAPUSH_ overrides,
    proxies or NOTIFY_SOCKET, so that only its configuration file speaks."""
    base = {"PATH": "/usr/bin:/bin"} if inherited is None else {
        key: value for key, value in inherited.items()
        if not key.startswith("INTRAPUSH_") and key != "NOTIFY_SOCKET"
        and key.lower() not in ("http_proxy", "https_proxy", "no_proxy")}
    return dict(base, HOME=home)


def start_daemon(binary, config, environment, stdout=subprocess.DEVNULL, stderr=None):
    """`intrapushd --config CONFIG`; the caller waits for what it needs (a connection, say)."""
    return subprocess.Popen([binary, "--config", str(config)], env=environment, stdout=stdout,
                            stderr=stderr if stderr is not None else subprocess.STDOUT)


def stop(process, timeout=10):
    """SIGTERM, then SIGKILL after `timeout`; returns the exit status."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return process.returncode


def import_path():
    """This directory, for the scripts beside it to put on sys.path."""
    return os.path.dirname(os.path.abspath(__file__))
