#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The world of one notifier-test scenario (notifier_test.py): a private session bus, python-dbusmock's
notification server on it, the devserver, the real daemon and the real agent, with the waits and
checks the scenarios share.
"""
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request

import dbus

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "support"))
from intrapush_test_support import free_port, wait_for  # noqa: E402,F401

IFACE = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
RECEIPT = '{"type":"read","message_id":"{message_id}"}'


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


class World:
    """One scenario's bus, notification server, push server, daemon and agent."""

    def __init__(self, bins, directory, capabilities="body body-markup actions"):
        self.bins, self.dir = bins, directory
        self.processes = []
        self.bus_process = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--print-address"], stdout=subprocess.PIPE, text=True,
            stderr=subprocess.DEVNULL)
        self.address = self.bus_process.stdout.readline().strip()
        self.env = {"PATH": f"{directory}/bin:/usr/bin:/bin", "HOME": directory,
                    "DBUS_SESSION_BUS_ADDRESS": self.address, "XDG_STATE_HOME": f"{directory}/state",
                    "XDG_CONFIG_HOME": f"{directory}/config"}
        self.bus = dbus.bus.BusConnection(self.address)
        self.mock = None
        self.start_server(capabilities)
        self.port = free_port()
        self.devserver = self.spawn("devserver", [f"{bins}/intrapush-devserver", "serve", "--listen",
                                                  f"127.0.0.1:{self.port}", "--token", "tok"])
        wait_for("the devserver", self.devserver_up)
        self.database = f"{directory}/notifications.sqlite3"
        with open(f"{directory}/intrapush.conf", "w") as out:
            out.write(f'host = "127.0.0.1:{self.port}"\norg = "acme"\ntoken = "tok"\n'
                      f'database = "{self.database}"\nread_receipt_text = \'{RECEIPT}\'\n')
        self.daemon = None
        self.agent = None
        os.makedirs(f"{directory}/bin", exist_ok=True)

    def spawn(self, name, argv, env=None):
        log = open(f"{self.dir}/{name}.log", "a")
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env or self.env)
        self.processes.append(process)
        return process

    def devserver_up(self):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats", timeout=1).read()
            return True
        except OSError:
            return False

    # --- the notification server ---
    def start_server(self, capabilities):
        self.mock = self.spawn("dbusmock", ["/usr/bin/python3", "-m", "dbusmock", "--session", "-t",
                                            "notification_daemon", "-p", json.dumps({"capabilities": capabilities})])
        wait_for("the notification server", lambda: self.bus.name_has_owner(IFACE))
        self.mock_api = dbus.Interface(self.bus.get_object(IFACE, PATH), "org.freedesktop.DBus.Mock")

    def stop_server(self):
        self.mock.terminate()
        self.mock.wait()
        wait_for("the notification server to go", lambda: not self.bus.name_has_owner(IFACE))

    def notifications(self):
        """Each Notify call: (summary, body, actions, hints, expire_timeout)."""
        calls = self.mock_api.GetMethodCalls("Notify")
        return [(str(a[3]), str(a[4]), [str(x) for x in a[5]], {str(k): v for k, v in a[6].items()}, int(a[7]))
                for _, a in calls]

    def summaries(self):
        return [n[0] for n in self.notifications()]

    def emit(self, member, signature, arguments):
        self.mock_api.EmitSignal(IFACE, member, signature, arguments)

    # --- the daemon, the agent, the pushes ---
    def start_daemon(self):
        self.daemon = self.spawn("daemon", [f"{self.bins}/intrapushd", "--config", f"{self.dir}/intrapush.conf"],
                                 env={"PATH": "/usr/bin:/bin", "HOME": self.dir})
        wait_for("the daemon to connect", lambda: self.stats()["connections_open"] == 1)

    def stop_daemon(self):
        self.daemon.terminate()
        self.daemon.wait()

    def start_agent(self, *options, name="agent"):
        self.agent = self.spawn(name, [f"{self.bins}/intrapush-notifier", "--database", self.database, *options])
        wait_for("the agent to own its bus name", lambda: self.bus.name_has_owner("org.intrapush.Notifier"))
        return self.agent

    def stop_agent(self):
        self.agent.send_signal(signal.SIGTERM)
        expect(self.agent.wait(10) == 0, f"the agent exits 0 on SIGTERM (was {self.agent.returncode})")
        wait_for("the agent's name to go", lambda: not self.bus.name_has_owner("org.intrapush.Notifier"))

    def stats(self):
        return json.loads(urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats").read())

    def push(self, obj):
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/push", data=json.dumps(obj).encode(), method="POST")
        urllib.request.urlopen(request).read()

    def stored(self, message_id):
        with sqlite3.connect(f"file:{self.database}?mode=ro", uri=True) as db:
            return db.execute("SELECT id, read_at FROM notifications WHERE message_id = ?", (message_id,)).fetchone()

    def upstream(self):
        return urllib.request.urlopen(f"http://127.0.0.1:{self.port}/upstream").read().decode()

    def close(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    process.kill()
        self.bus.close()
        self.bus_process.terminate()
        self.bus_process.wait()


def hint(notification, key):
    value = notification[3].get(key)
    return None if value is None else (int(value) if isinstance(value, dbus.Byte) else str(value))
