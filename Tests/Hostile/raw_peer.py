#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The machinery of the hostile peer (hostile.py): the release daemon under watch, with its
resident memory sampled all along, and a raw WebSocket server on loopback written by hand, with
the frames it sends and reads, so that the scenarios can do what no server library would; and
the Varlink messages a local client writes to the daemon's socket and the replies it reads.
"""
import json
import os
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "support"))
from intrapush_test_support import daemon_environment, free_port, start_daemon  # noqa: E402,F401
from websocket_server import accept_upgrade, frame, unmasked_frame  # noqa: E402,F401

# An idle daemon is about 20 MiB; every ceiling of docs/operating.md, "Limits" with the defaults stays far
# below this. The former daemon reached 1.5 GiB with the fragment flood.
RSS_CEILING_MIB = 120
FLOOD_SECONDS = 6
def wait_seconds(line):
    """The wait of a `reconnecting in 735ms (attempt 2)` or `… in 10s …` line, in seconds."""
    text = line.split("reconnecting in ")[1].split(" ")[0]
    return float(text[:-2]) / 1000 if text.endswith("ms") else float(text[:-1])


class Daemon:
    """The release daemon with a config of its own, its RSS sampled every 50 ms."""

    latest = None

    def __init__(self, binary, port, directory, extra=""):
        self.directory = directory
        self.database = os.path.join(directory, "notifications.sqlite3")
        config = os.path.join(directory, "intrapush.conf")
        with open(config, "w") as out:
            out.write(
                f'host = "127.0.0.1:{port}"\norg = "acme"\ntoken = "hostile-token"\n'
                f'database = "{self.database}"\nheartbeat_interval = "1s"\nreconnect_min = "200ms"\n'
                f'reconnect_max = "1s"\nconnect_timeout = "2s"\n{extra}')
        self.log = open(os.path.join(directory, "daemon.log"), "w+")
        self.process = start_daemon(binary, config, daemon_environment(directory), stdout=self.log)
        self.peak_kib = 0
        Daemon.latest = self  # a failed scenario still reports the daemon it started
        self.sampling = True
        self.sampler = threading.Thread(target=self._sample, daemon=True)
        self.sampler.start()

    def _status_kib(self, field):
        """A figure of /proc/PID/status in KiB (`VmRSS`, `VmHWM`); None once it is not there."""
        try:
            with open(f"/proc/{self.process.pid}/status") as status:
                for line in status:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
        except OSError:
            pass
        return None

    def _sample(self):
        while self.sampling and self.process.poll() is None:
            self.peak_kib = max(self.peak_kib, self._status_kib("VmRSS") or 0)
            time.sleep(0.05)

    @property
    def alive(self):
        return self.process.poll() is None

    @property
    def peak_mib(self):
        """The kernel's high-water mark (VmHWM) while the process lives; the samples after."""
        self.peak_kib = max(self.peak_kib, self._status_kib("VmHWM") or 0)
        return self.peak_kib / 1024

    def text(self):
        self.log.flush()
        with open(self.log.name) as log:
            return log.read()

    def wait_for(self, predicate, timeout, what):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return True
            time.sleep(0.05)
        raise TimeoutError(f"waited {timeout} s for {what}")

    def stop(self):
        self.sampling = False
        if self.alive:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()


class RawServer:
    """Accepts connections on loopback; `handler(connection, request)` runs per connection in a
    thread, after the caller's choice of answer to the upgrade."""

    def __init__(self, handler):
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.handler = handler
        self.attempts = 0
        self.running = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while self.running:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.attempts += 1
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection):
        try:
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = connection.recv(4096)
                if not chunk:
                    return
                request += chunk
            self.handler(connection, request)
        except OSError:
            pass
        finally:
            connection.close()

    def close(self):
        self.running = False
        self.listener.close()


def read_frames(connection, stop_after=None, timeout=5):
    """Client frames (masked) until the connection ends or `stop_after` returns true."""
    connection.settimeout(timeout)
    buffer = b""
    frames = []
    while True:
        while (parsed := unmasked_frame(buffer)) is not None:
            opcode, payload, buffer = parsed
            frames.append((opcode, payload))
            if stop_after and stop_after(frames):
                return frames
        try:
            chunk = connection.recv(65536)
        except (socket.timeout, OSError):
            return frames
        if not chunk:
            return frames
        buffer += chunk



# --- the local API: Varlink (varlink.org), each message a JSON object ended by a NUL byte ---------

def varlink_connect(path, timeout=10):
    """A connection to the daemon's socket; a full listen backlog is waited out for `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        client = socket.socket(socket.AF_UNIX)
        client.settimeout(timeout)
        try:
            client.connect(path)
            return client
        except BlockingIOError:  # the daemon has not accepted the earlier connections yet
            client.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)
        except OSError:
            client.close()
            raise


def varlink_message(method, parameters=None, more=False):
    call = {"method": method}
    if parameters is not None:
        call["parameters"] = parameters
    if more:
        call["more"] = True
    return json.dumps(call).encode() + b"\0"


def read_replies(connection, stop_after=None, timeout=10):
    """Replies, decoded, until the connection ends, `timeout` passes with nothing read, or
    `stop_after` returns true."""
    connection.settimeout(timeout)
    buffer = b""
    replies = []
    while True:
        while b"\0" in buffer:
            message, buffer = buffer.split(b"\0", 1)
            replies.append(json.loads(message))
            if stop_after and stop_after(replies):
                return replies
        try:
            chunk = connection.recv(65536)
        except OSError:  # a timeout, or reset by the daemon
            return replies
        if not chunk:
            return replies
        buffer += chunk


def ended(connection, timeout=5):
    """Whether the daemon closes the connection within `timeout` (whatever it still says first)."""
    connection.settimeout(timeout)
    try:
        while connection.recv(65536):
            pass
        return True
    except socket.timeout:
        return False
    except OSError:
        return True


def varlink_call(path, method, parameters=None, more=False):
    """One call on a connection of its own: its replies, up to the last (the one without
    `continues`), or as many as came before the daemon closed the connection."""
    with varlink_connect(path) as connection:
        connection.sendall(varlink_message(method, parameters, more))
        return read_replies(connection, stop_after=lambda replies: not replies[-1].get("continues"))
